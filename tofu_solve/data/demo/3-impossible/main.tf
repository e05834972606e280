# Impossible as written: every vpc 6.1+ needs hashicorp/aws >= 6.0, the root allows 5.x only.

terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.1"
}
