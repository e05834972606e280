terraform {
  provider_meta "my-provider" {
    hello = "test-module"
  }
}
