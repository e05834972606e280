locals {
  common_tags = {
    ManagedBy   = "terraform"
    Environment = "production"
  }
  
  approved_regions = ["us-east-1", "us-west-2"]
  test_vpc_id      = "vpc-12345678"
}

resource "aws_instance" "tagged" {
  attrs = {
    instance_type = "t3.micro"
    ami           = "ami-12345678"
    tags          = local.common_tags
  }
}

resource "aws_subnet" "public" {
  attrs = {
    vpc_id            = local.test_vpc_id
    cidr_block        = "10.0.1.0/24"
    availability_zone = local.approved_regions[0]
  }
}

provider "aws" "approved" {
  meta = {
    version = "5.1.0"
  }
  attrs = {
    region = local.approved_regions[1]
  }
}

provider "aws" "unapproved_region" {
  expect_failure = true
  meta = {
    version = "5.1.0"
  }
  attrs = {
    region = "ap-south-1"
  }
}

provider "aws" "old_version" {
  expect_failure = true
  meta = {
    version = "4.9.0"
  }
  attrs = {
    region = "us-east-1"
  }
}
