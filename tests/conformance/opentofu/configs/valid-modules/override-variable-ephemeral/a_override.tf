variable "false_true" {
  ephemeral = true
}

variable "true_false" {
  ephemeral = false
}

variable "false_false_true" {
  ephemeral = false
}

variable "true_true_false" {
  ephemeral = true
}

variable "false_true_false" {
  ephemeral = true
}

variable "true_false_true" {
  ephemeral = false
}
