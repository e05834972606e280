terraform {
  required_providers {
    foo = {
      version = "~>2.0.0"
    }
  }
}
