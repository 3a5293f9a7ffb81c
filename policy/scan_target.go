package policy

import (
	"strings"

	"github.com/stockade/stockade/parse"
)

// Round 17: a health check through bash's /dev/tcp to a port of this
// machine (exec 3<>/dev/tcp/127.0.0.1/8080; printf 'GET /' >&3; cat <&3)
// connects no shell to anyone: devNetLocal is true when a command that only
// opens descriptors or moves text (exec with no program, echo, printf,
// cat) redirects to /dev/tcp or /dev/udp of loopback addresses only. A
// shell or interpreter so connected stays a reverse shell, wherever to.
func devNetLocal(inv *parse.Invocation) bool {
	if commandName(inv.Name) == "exec" && len(inv.Args) > 0 {
		return false
	}
	n := 0
	for _, r := range inv.Redirects {
		rest, ok := strings.CutPrefix(r.Target, "/dev/tcp/")
		if !ok {
			rest, ok = strings.CutPrefix(r.Target, "/dev/udp/")
		}
		if !ok {
			continue
		}
		host, port, _ := strings.Cut(rest, "/")
		if r.Dynamic || !loopbackHost(host) || port == "" || strings.Trim(port, "0123456789") != "" {
			return false
		}
		n++
	}
	return n > 0
}

// Round 17: a port scan of this machine (nmap -p 3000-3010 127.0.0.1,
// which dev server is up) probes nothing outside. scanTargetLocal tells it
// from a scan of other hosts: every target is a loopback address or
// localhost, none comes from a file or at random (-iL, -iR, a masscan
// config), and every word is a target, a port list or the value of an
// option it knows; whatever else it sees makes it false.

// scanTargetFrom: options that take targets from somewhere the command
// line does not show.
var scanTargetFrom = map[string]bool{"-iL": true, "-iR": true, "--resume": true, "--includefile": true, "-c": true, "--conf": true}

// scanValueOpts: options of nmap, masscan and rustscan that take the next
// word as a value that names no target. --script (NSE code may connect
// anywhere) and -b (an FTP relay) are not among them.
var scanValueOpts = map[string]bool{"-p": true, "--ports": true, "--top-ports": true, "-e": true, "-oN": true, "-oX": true, "-oG": true, "-oA": true, "-oS": true,
	"-oJ": true, "-oL": true, "--rate": true, "--min-rate": true, "--max-rate": true, "--max-retries": true, "--host-timeout": true,
	"-T": true, "--batch-size": true, "-t": true, "--timeout": true, "--ulimit": true, "--range": true}

func scanTargetLocal(inv *parse.Invocation) bool {
	targets := 0
	for _, w := range serverWords(inv, func(opt string) bool { return scanValueOpts[opt] || scanTargetFrom[opt] }) {
		if w.dyn || scanTargetFrom[w.opt] || strings.HasPrefix(w.opt, "-iL") || strings.HasPrefix(w.opt, "-iR") {
			return false
		}
		switch {
		case w.value == "" && w.opt != "":
			// a flag: -sT, -Pn, --open
		case w.opt == "-a" || w.opt == "--addresses" || w.opt == "":
			// rustscan -a 127.0.0.1,localhost; an operand elsewhere
			for _, t := range strings.Split(w.value, ",") {
				if strings.Contains(t, "/") || !localAddress(t) {
					return false
				}
				targets++
			}
		case !scanValueOpts[w.opt]:
			return false
		}
	}
	return targets > 0
}
