variable "bad_type" {
    type = notatype
}
