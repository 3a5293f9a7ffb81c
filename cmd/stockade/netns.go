package main

import (
	"os"

	"github.com/stockade/stockade/degrade"
	"github.com/stockade/stockade/sandbox"
)

// aheadNetNS makes the network namespace `stockade run` hands its child
// before the policy is known: where the host can make one (root with
// CAP_SYS_ADMIN) and --network on does not rule it out, else nil.
func aheadNetNS(f *sandboxFlags) (*os.File, error) {
	h := degrade.Detect()
	if !h.CanNetNS() || f.network == "on" {
		return nil, nil
	}
	return sandbox.NewNetNS()
}
