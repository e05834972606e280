output "fully_overridden" {
  value = "base"
  description = "base description"
}

output "partially_overridden" {
  value = "base"
  description = "base description"
}
