terraform {
  cloud {
    organization = "foo"
  }
}

terraform {
  cloud {
    organization = "bar"
  }
}
