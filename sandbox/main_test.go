package sandbox

import (
	"testing"

	"github.com/stockade/stockade/internal/leakcheck"
)

func TestMain(m *testing.M) {
	leakcheck.Main(m)
}
