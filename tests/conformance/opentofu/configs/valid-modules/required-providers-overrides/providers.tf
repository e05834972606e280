terraform {
  required_providers {
    bar = {
      source = "acme/bar"
    }

    foo = {
      source = "acme/foo"
    }
  }
}
