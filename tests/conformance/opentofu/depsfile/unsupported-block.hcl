doodad "blah" { # ERROR: Unsupported block type
}
