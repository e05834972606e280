variable "sensitive-value" {
  sensitive = "123" # must be boolean
}
