inputs {
  require_encryption = true
  allowed_regions    = ["us-east-1", "us-west-2"]
}

provider "aws" "allowed" {
  attrs = {
    region = "us-west-2"
  }
}

provider "aws" "not_allowed" {
  expect_failure = true
  attrs = {
    region = "eu-west-1"
  }
}

provider "aws" "allowed_by_its_own_inputs" {
  attrs = {
    region = "eu-west-1"
  }
  inputs {
    allowed_regions = ["eu-west-1"]
  }
}
