package policy

import "github.com/stockade/stockade/parse"

// parseScript is the shell parser Check uses.
var parseScript = parse.Parse
