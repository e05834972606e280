resource bar_thing "bt" {
  provider = bar
}

resource foo_thing "ft" {
  provider = foo
}
