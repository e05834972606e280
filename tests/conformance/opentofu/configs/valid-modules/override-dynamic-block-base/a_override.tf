
resource "test" "foo" {
  foo {
    from = "override"
  }
}
