# The aws 6.0 provider split: vpc 6.6.0 (the newest ~> 6.0) needs hashicorp/aws >= 6.28,
# eks 20.37.2 (the newest ~> 20.0) needs hashicorp/aws < 6.0.0. Newest-per-call fails;
# eks 20.37.0 declares only >= 5.95, so a joint choice exists.

terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.95"
    }
  }
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.0"
}

module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"
}
