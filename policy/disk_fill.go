package policy

import (
	"strconv"
	"strings"

	"github.com/stockade/stockade/parse"
)

// Round 14: the disk filled by copying an endless device (dd if=/dev/zero,
// head -c from /dev/urandom, cat /dev/zero > f, yes > f): bounded by a
// count of 100 GB or more, or by nothing at all. Its output piped into a
// compressor is a bomb that expands to that size.

// fillSize (100 GB) is the size from which a bounded copy counts as
// filling the disk.
const fillSize = 100_000_000_000

// endlessDevices never run out of bytes to read.
var endlessDevices = map[string]bool{"/dev/zero": true, "/dev/urandom": true, "/dev/random": true, "/dev/full": true}

// fillsDisk reports whether invocation i copies an endless device to a
// file or a pipe, 100 GB or more or without bound.
func (ctx *scriptCtx) fillsDisk(i int, a *argv) bool {
	inv := &ctx.invs[i]
	out := ""
	for _, r := range inv.Redirects {
		if (r.Op == ">" || r.Op == ">>" || r.Op == ">|" || r.Op == "&>") && (r.FD == "" || r.FD == "1") {
			out = r.Target
		}
	}
	switch a.name {
	case "dd":
		in, of, bs, count := "", "", int64(512), int64(-1)
		for _, w := range inv.Args {
			k, v, _ := strings.Cut(w, "=")
			switch k {
			case "if":
				in = v
			case "of":
				of = v
			case "bs", "obs":
				if n, ok := byteSize(v); ok {
					bs = n
				}
			case "count":
				if n, ok := byteSize(v); ok {
					count = n
				}
			}
		}
		if of == "" {
			of = out
		}
		if of == "/dev/null" || strings.HasPrefix(of, "/dev/") && of != "/dev/stdout" {
			return false // a benchmark, or a device (the disk rules judge those)
		}
		if count < 0 {
			return endlessDevices[in] && of != ""
		}
		return (endlessDevices[in] || in == "" && !inv.PipedInto) && count >= fillSize/bs
	case "head":
		for k, w := range inv.Args {
			v := ""
			switch {
			case w == "-c" || w == "--bytes":
				if k+1 < len(inv.Args) {
					v = inv.Args[k+1]
				}
			case strings.HasPrefix(w, "--bytes="):
				v = w[len("--bytes="):]
			case strings.HasPrefix(w, "-c"):
				v = w[2:]
			}
			if n, ok := byteSize(v); ok && n >= fillSize && out != "/dev/null" {
				for _, p := range a.positionals {
					if endlessDevices[p] {
						return true
					}
				}
				// Round 20: yes x | head -c 100G > f, the bound of a
				// stream from a pipe, to a file or a compressor
				if (len(a.positionals) == 0 || len(a.positionals) == 1 && a.positionals[0] == v) && inv.PipedInto && i > 0 && endlessStream(&ctx.invs[i-1]) &&
					(out != "" && !strings.HasPrefix(out, "/dev/") || i+1 < len(ctx.invs) && ctx.invs[i+1].PipedInto && packers[ctx.invs[i+1].Name]) {
					return true
				}
			}
		}
	case "cat", "pv":
		if out != "" && !strings.HasPrefix(out, "/dev/") {
			for _, p := range a.positionals {
				if endlessDevices[p] {
					return true
				}
			}
		}
	case "yes":
		return out != "" && !strings.HasPrefix(out, "/dev/")
	case "seq", "jot":
		// seq 1 inf > f: numbers without end
		if out != "" && !strings.HasPrefix(out, "/dev/") && len(a.positionals) > 0 {
			last := strings.ToLower(a.positionals[len(a.positionals)-1])
			// Round 20: or a count of ten billion and more (seq 1e15 > f):
			// a hundred gigabytes of digits
			n, err := strconv.ParseFloat(last, 64)
			return last == "inf" || last == "infinity" || last == "+inf" || err == nil && n >= 1e10
		}
	case "gzip", "pigz", "xz", "zstd", "bzip2", "lz4", "brotli", "tee": // packers
		// cat /dev/zero | gzip > bomb.gz: what the compressor writes
		// expands without bound.
		if !inv.PipedInto || i == 0 || !(out != "" && !strings.HasPrefix(out, "/dev/") || a.name == "tee" && len(a.positionals) > 0) {
			return false
		}
		return endlessStream(&ctx.invs[i-1])
	}
	return false
}

// packers are what a stream is piped into to be written compressed (a
// bomb), or kept (tee).
var packers = map[string]bool{"gzip": true, "pigz": true, "xz": true, "zstd": true, "bzip2": true, "lz4": true, "brotli": true, "tee": true}

// endlessStream reports whether inv writes without end to its standard
// output: yes, cat or pv of an endless device, dd of one with no count.
func endlessStream(inv *parse.Invocation) bool {
	switch inv.Name {
	case "yes":
		return true
	case "cat", "pv":
		for _, p := range inv.Args {
			if endlessDevices[p] {
				return true
			}
		}
	case "dd":
		endless, counted := false, false
		for _, w := range inv.Args {
			endless = endless || strings.HasPrefix(w, "if=") && endlessDevices[w[3:]]
			counted = counted || strings.HasPrefix(w, "count=")
		}
		return endless && !counted
	}
	return false
}

// byteSize reads a size as dd and head write it: digits and a unit (K,
// M, G, T, P with iB or B; c, w, b; kB, MB as powers of 1000).
func byteSize(s string) (int64, bool) {
	j := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(s[:j], 10, 64)
	if err != nil {
		return 0, false
	}
	unit := s[j:]
	mult := int64(1)
	switch strings.TrimSuffix(strings.TrimSuffix(unit, "iB"), "B") {
	case "", "c":
		if strings.HasSuffix(unit, "B") && unit != "B" {
			return 0, false
		}
	case "w":
		mult = 2
	case "b":
		mult = 512
	case "K", "k":
		mult = 1 << 10
	case "M", "m":
		mult = 1 << 20
	case "G", "g":
		mult = 1 << 30
	case "T", "t":
		mult = 1 << 40
	case "P", "p":
		mult = 1 << 50
	default:
		return 0, false
	}
	if strings.HasSuffix(unit, "B") && !strings.HasSuffix(unit, "iB") && len(unit) == 2 {
		mult = pow1000(mult) // kB, MB, GB: powers of 1000
	}
	if n > 0 && mult > (1<<62)/n {
		return 1 << 62, true
	}
	return n * mult, true
}

// pow1000 turns a power of 1024 into the power of 1000 of the same unit.
func pow1000(m int64) int64 {
	r := int64(1)
	for ; m > 1; m >>= 10 {
		r *= 1000
	}
	return r
}
