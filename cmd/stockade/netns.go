package main

import (
	"os"

	"github.com/stockade/stockade/degrade"
	"github.com/stockade/stockade/sandbox"
)

// aheadNetNS makes the network namespace `stockade run` hands its child
// before the policy is known: where the host can make one (root with
// CAP_SYS_ADMIN), else nil.
func aheadNetNS() (*os.File, error) {
	h := degrade.Detect()
	if !h.CanNetNS() {
		return nil, nil
	}
	return sandbox.NewNetNS()
}
