terraform {
  # OpenTofu should ignore this constraint entirely, on the assumption that
  # it's intended for OpenTofu's predecessor.
  required_version = "0.1.99"
}
