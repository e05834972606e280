policytest {
  targets = ["../policies/example.policy.hcl"]
}

module "./modules/networking" "local_module" {
  meta = {
    source  = "./modules/networking"
    version = "1.0.0"
  }

  attrs = {
    environment = "production"
    vpc_cidr    = "10.0.0.0/16"
  }
}
