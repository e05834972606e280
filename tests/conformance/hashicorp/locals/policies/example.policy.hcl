locals {
  approved_regions   = ["us-east-1", "us-west-2", "eu-west-1"]
  version_constraint = ">= 5.0.0"
}

provider_policy "aws" "region_and_version" {
  locals {
    meets_version = core::semverconstraint(meta.version, local.version_constraint)
  }

  enforce {
    condition     = core::contains(local.approved_regions, attrs.region)
    error_message = "AWS provider region must be one of: ${core::join(", ", local.approved_regions)}"
  }

  enforce {
    condition     = local.meets_version
    error_message = "The AWS provider version must be at least ${local.version_constraint}."
  }
}
