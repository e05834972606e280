input "allowed_regions" {
  type        = list(string)
  description = "List of allowed AWS regions"
  default     = ["us-east-1", "us-west-2"]
}

provider_policy "aws" "region_check" {
  enforce {
    condition     = core::contains(input.allowed_regions, attrs.region)
    error_message = "AWS provider region must be one of: ${core::join(", ", input.allowed_regions)}"
  }
}
