policytest {
  targets = [
    "../policies/aws_provider.policy.hcl",
    "../policies/encrypted_ebs.policy.hcl"
  ]
}

provider "aws" "example" {
  meta = {
    source  = "hashicorp/aws"
    version = "5.0.0"
  }
  
  attrs = {
    region = "us-east-1"
  }
}

resource "aws_ebs_volume" "encrypted" {
  attrs = {
    availability_zone = "us-east-1a"
    size              = 10
    encrypted         = true
  }
}

provider "aws" "wrong_region" {
  expect_failure = true
  meta = {
    source  = "hashicorp/aws"
    version = "5.0.0"
  }
  attrs = {
    region = "eu-west-1"
  }
}

provider "aws" "too_old" {
  expect_failure = true
  meta = {
    source  = "registry.terraform.io/hashicorp/aws"
    version = "4.67.0"
  }
  attrs = {
    region = "us-east-1"
  }
}

provider "aws" "aliased_is_filtered_out" {
  meta = {
    alias   = "west"
    version = "4.0.0"
  }
  attrs = {
    region = "us-west-2"
  }
}
