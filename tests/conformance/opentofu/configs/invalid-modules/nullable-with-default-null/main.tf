variable "in" {
  type = number
  nullable = false
  default = null
}
