# A root module with the provider split that newest-per-call selection cannot solve:
# vpc 6.6.0 (the newest ~> 6.0) needs hashicorp/aws >= 6.28, while eks 20.37.2 (the newest
# ~> 20.0) needs hashicorp/aws < 6.0.0. eks 20.37.0 declares only aws >= 5.95.

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

  name = "example"
  cidr = "10.0.0.0/16"
}

module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"

  cluster_name = "example"
  vpc_id       = module.vpc.vpc_id
  subnet_ids   = module.vpc.private_subnets
}
