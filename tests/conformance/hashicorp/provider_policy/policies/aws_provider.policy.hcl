provider_policy "aws" "standard_configuration" {
  enforcement_level = "mandatory"
  filter = meta.alias == null

  locals {
    version_constraint = core::semverconstraint(meta.version, ">= 5.0.0")
  }

  enforce {
    condition = attrs.region == "us-east-1"
    error_message = "All AWS resources must be deployed in the us-east-1 region."
    info_message = "Checking provider region: ${attrs.region}"
  }

  enforce {
    condition = meta.source == "hashicorp/aws"
    error_message = "Only the official HashiCorp AWS provider is permitted."
  }

  enforce {
    condition = local.version_constraint
    error_message = "The AWS provider version must be at least 5.0.0."
  }
}
