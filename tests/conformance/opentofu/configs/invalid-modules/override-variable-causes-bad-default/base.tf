variable "foo" {
  type    = list(string)
  default = ["this is valid"]
}
