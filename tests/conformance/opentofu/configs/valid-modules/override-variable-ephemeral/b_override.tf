variable "false_true" {
}

variable "true_false" {
}

variable "false_false_true" {
  ephemeral = true
}

variable "true_true_false" {
  ephemeral = false
}

variable "false_true_false" {
  ephemeral = false
}

variable "true_false_true" {
  ephemeral = true
}
