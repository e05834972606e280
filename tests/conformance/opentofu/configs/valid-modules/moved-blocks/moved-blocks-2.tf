# One more moved block in a separate file just to make sure the
# appending of multiple files works properly.
moved {
  from = data.test.foo
  to   = data.test.bar
}
