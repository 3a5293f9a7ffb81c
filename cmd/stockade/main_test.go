package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stockade/stockade/degrade"
	"github.com/stockade/stockade/hostfacts"
	"github.com/stockade/stockade/policy"
)

// TestMain lets the test binary act as the stockade command inside scripts, and
// as the sandboxed child it re-executes (package sandbox's init checks the
// production sentinel).
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"stockade": main})
}

// TestScript runs the CLI behaviour files in testdata/script.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "../../testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// HOME is beside $WORK, not inside it, as a project is not the
			// directory that holds the home directory (stockade refuses such a
			// workdir); the archive's home/ files are moved there.
			home := env.WorkDir + ".home"
			env.Setenv("HOME", home)
			env.Defer(func() { os.RemoveAll(home) })
			// A loopback port free when the script starts, for `serve --http`.
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return err
			}
			env.Setenv("PORT", strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
			ln.Close()
			if err := os.Rename(env.WorkDir+"/home", home); err == nil || !os.IsNotExist(err) {
				return err
			}
			return os.MkdirAll(home, 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"mcpstatus": mcpStatus,
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "enforced":
				// This host fully enforces the built-in policy, so a strict
				// stockade run or serve starts (not so on the kernels of the
				// matrix without Landlock, or with ABI 2).
				_, _, err := degrade.Plan(hostfacts.Detect(), policy.Default().Sandbox, "/", os.TempDir())
				return err == nil, nil
			case "pip":
				// python3 -m pip works (Debian's python3 comes without it).
				return exec.Command("python3", "-m", "pip", "--version").Run() == nil, nil
			case "netns":
				// Each session gets a network namespace of its own (root
				// with CAP_SYS_ADMIN).
				return hostfacts.Detect().CanNetNS(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// mcpStatus is the script command `mcpstatus URL TOKEN`: it sends an MCP
// initialize request with that bearer token, once the server at URL accepts
// connections (waiting up to 20 s for it to start), and prints the HTTP status.
func mcpStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mcpstatus URL TOKEN")
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	deadline := time.Now().Add(20 * time.Second)
	for {
		req, err := http.NewRequest(http.MethodPost, args[0], strings.NewReader(body))
		ts.Check(err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+args[1])
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			fmt.Fprintln(ts.Stdout(), resp.StatusCode)
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
