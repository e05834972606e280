variable "false_true" {
  sensitive = false
}

variable "true_false" {
  sensitive = true
}

variable "false_false_true" {
  sensitive = false
}

variable "true_true_false" {
  sensitive = true
}

variable "false_true_false" {
  sensitive = false
}

variable "true_false_true" {
  sensitive = true
}
