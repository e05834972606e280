# terraform-aws-modules/vpc's own examples/complete (6.6.0), as a user would write it:
# newest-per-call selection (what tofu init does) resolves it, and tofu-solve agrees.

terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 6.28"
    }
  }
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.0"
}

module "vpc_endpoints" {
  source  = "terraform-aws-modules/vpc/aws//modules/vpc-endpoints"
  version = "~> 6.0"
}
