input "allowed_instance_types" {
  type        = list(string)
  description = "List of allowed EC2 instance types"
  default     = ["t3.micro", "t3.small"]
  sensitive   = false
  nullable    = false
}

input "environment" {
  type        = string
  description = "The environment name (For example: dev, staging, prod)"
  default     = "dev"
}

resource_policy "aws_instance" "instance_type_check" {
  enforce {
    condition     = core::contains(input.allowed_instance_types, attrs.instance_type)
    error_message = "Instance type ${attrs.instance_type} is not in the allowed list for the ${input.environment} environment: ${core::join(", ", input.allowed_instance_types)}"
  }
}
