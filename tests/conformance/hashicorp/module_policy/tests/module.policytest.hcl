policytest {
  targets = ["../policies/inputs.policy.hcl"]
}

module "app.terraform.io/my-org/vpc/aws" "current_version" {
  meta = {
    source  = "app.terraform.io/my-org/vpc/aws"
    version = "2.0.0"
  }

  attrs = {
    name = "production-vpc"
    cidr = "10.0.0.0/16"
  }
}

module "app.terraform.io/my-org/vpc/aws" "outdated_version" {
  expect_failure = true
  
  meta = {
    source  = "app.terraform.io/my-org/vpc/aws"
    version = "1.0.0"
  }

  attrs = {
    name = "production-vpc"
    cidr = "10.0.0.0/16"
  }
}

module "app.terraform.io/my-org/vpc/aws" "configurable" {
  meta = {
    source  = "app.terraform.io/my-org/vpc/aws"
    version = input.min_module_version
  }

  attrs = {
    name = "vpc"
    cidr = "10.0.0.0/16"
  }
}

module "app.terraform.io/my-org/vpc/aws" "override_version" {
  meta = {
    source  = "app.terraform.io/my-org/vpc/aws"
    version = "3.0.0"
  }

  attrs = {
    name = "vpc"
    cidr = "10.0.0.0/16"
  }
  
  inputs {
    min_module_version = "3.0.0"
  }
}

module "app.terraform.io/my-org/security-group/aws" "v2_x" {
  meta = {
    source  = "app.terraform.io/my-org/security-group/aws"
    version = "2.5.0"
  }

  attrs = {
    name        = "web-sg"
    description = "Security group for web servers"
  }
}

module "app.terraform.io/my-org/security-group/aws" "v3_x" {
  meta = {
    source  = "app.terraform.io/my-org/security-group/aws"
    version = "3.0.0"
  }

  attrs = {
    name        = "web-sg"
    description = "Security group for web servers"
  }
}

module "app.terraform.io/my-org/security-group/aws" "too_old" {
  expect_failure = true
  
  meta = {
    source  = "app.terraform.io/my-org/security-group/aws"
    version = "1.9.0"
  }

  attrs = {
    name        = "web-sg"
    description = "Security group for web servers"
  }
}
