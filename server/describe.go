package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/stockade/stockade/buildcache"
	"github.com/stockade/stockade/netproxy"
	"github.com/stockade/stockade/sandbox"
)

// sandboxSentences tells the model, in two sentences, what this session's
// sandbox lets it write and read, and whether it has a network, so that it
// does not find out by failing (and knows what to ask the user for).
func sandboxSentences(spec sandbox.Spec, workdir, mode string, allow []string) string {
	var files string
	switch spec.FS {
	case sandbox.FSWorkspaceWrite:
		writable := []string{"the working directory " + workdir, "your private $TMPDIR"}
		cacheRoot, _ := buildcache.Root()
		for _, r := range spec.WritableRoots {
			if cacheRoot != "" && strings.HasPrefix(r, cacheRoot+"/") {
				writable = append(writable, "this project's build cache "+r+" (GOCACHE, GOMODCACHE, npm, pip, cargo, Gradle and Maven point there)")
			} else {
				writable = append(writable, r)
			}
		}
		files = "Files (workspace-write): you can write only to " + list(writable) + "; everything else is read-only"
	case sandbox.FSReadOnly:
		files = "Files (read-only): you can write only to your private $TMPDIR; everything else, the working directory " + workdir + " included, is read-only"
	default:
		files = "Files: not confined (filesystem off): you can write wherever the user can"
	}
	if len(spec.ReadableRoots) > 0 {
		files += ", and only " + list(tilde(spec.ReadableRoots)) + " and system directories are readable"
	}
	if len(spec.DenyRead) > 0 {
		shown := tilde(spec.DenyRead)
		if len(shown) > 3 {
			shown = append(shown[:3], fmt.Sprintf("%d more secret stores", len(spec.DenyRead)-3))
		}
		files += ", and " + list(shown) + " are unreadable"
	}
	network := strings.TrimSuffix(netproxy.Describe(mode, spec.NetNS, allow), ".")
	if mode == "allowlist" && (spec.Supervised || spec.ProxyPortOnly) {
		// No namespace: the connect supervisor (or Landlock's port rule)
		// lets commands reach the proxy only.
		hosts := "none yet"
		if len(allow) > 0 {
			hosts = strings.Join(allow, ", ")
		}
		network = "Network: only these hosts, by name, through stockade's proxy (HTTP_PROXY and HTTPS_PROXY are set; tools that ignore them get no connection): " +
			hosts + "; nothing else, not even loopback: servers cannot listen on 127.0.0.1"
	}
	if spec.UnixSocketsOff {
		network += "; new unix sockets (docker.sock, ssh-agent) are refused"
	}
	return files + ". " + network + "."
}

func list(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// tilde writes paths under $HOME as ~/...
func tilde(paths []string) []string {
	home := os.Getenv("HOME")
	out := make([]string, len(paths))
	for i, p := range paths {
		if rel, err := filepath.Rel(home, p); home != "" && err == nil && !strings.HasPrefix(rel, "..") && rel != "." {
			p = "~/" + rel
		}
		out[i] = p
	}
	return out
}
