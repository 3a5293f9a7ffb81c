package policy

import (
	"strings"
	"sync"
)

// Command signatures: what a command does with its operands and with the
// values of some options, the one table the effects analysis reads. A
// command not in the table has no file effects beyond its redirections
// (and its own path, when run by path).

// role says which operands an effect applies to.
type role uint8

const (
	none      role = iota
	all            // every operand
	last           // the last operand (cp's target)
	butLast        // every operand but the last (cp's sources)
	first          // the first operand
	butFirst       // every operand but the first (grep's files after the pattern)
	afterMode      // every operand but the first (chmod MODE FILE...)
)

// signature describes one command.
type signature struct {
	reads, writes, deletes, execs role
	// valueShort and valueLong are options that take a value in the next
	// word (or attached), so that the value is not read as an operand.
	valueShort string
	valueLong  []string
	// abbrev: long options may be abbreviated to any unique prefix
	// (getopt_long); tools that parse options otherwise match whole names.
	abbrev bool
	// optionFiles: options whose value is a file the command reads (r),
	// writes (w) or runs (x): curl -o FILE, dd of=FILE, tar -F SCRIPT; X: a
	// file read as configuration that names programs to run (ssh -F),
	// or a makefile; e: an action that runs a program only when written
	// exec=PROGRAM (tar --checkpoint-action=exec=sh; =dot runs nothing).
	optionFiles map[string]byte
	// readsOnlyWith: short options that put the command in a mode that
	// only reads the files its options name, which it writes otherwise
	// (ssh-keygen -l -f KEY shows a key's fingerprint; -f alone makes one).
	readsOnlyWith string
	// patternFirst: the first operand is a pattern or program, not a file,
	// unless one of patternOpts gives it (grep -e, awk -f, sed -e).
	patternFirst bool
	patternOpts  string
	// impliedReads: options that make the command read a store of its own
	// (gpg --export-secret-keys reads the private keys under ~/.gnupg).
	impliedReads map[string]string
	// removes: options (a letter, or a full long name) that make the
	// command delete the files it reads once done (tar --remove-files,
	// zip -m).
	removes map[string]bool
	// deletesAfter: subcommands (an operand) after which every operand is a
	// file the command deletes (cmake -E rm, cmake -E remove_directory).
	deletesAfter map[string]bool
}

var (
	readAll   = &signature{reads: all, abbrev: true}
	grepLike  = &signature{reads: all, patternFirst: true, patternOpts: "ef", valueShort: "efmABCdD", valueLong: []string{"regexp", "file", "max-count", "after-context", "before-context", "context", "include", "exclude", "exclude-dir", "label", "color", "colour", "binary-files", "devices", "directories"}, abbrev: true}
	copyLike  = &signature{reads: butLast, writes: last, valueShort: "tS", valueLong: []string{"target-directory", "suffix", "backup", "reflink", "sparse", "preserve"}, abbrev: true}
	moveLike  = &signature{reads: butLast, deletes: butLast, writes: last, valueShort: "tS", valueLong: []string{"target-directory", "suffix", "backup"}, abbrev: true}
	writeAll  = &signature{writes: all, abbrev: true}
	deleteAll = &signature{deletes: all, abbrev: true}
	diskTool  = &signature{writes: all} // option values count as operands: a device is never missed
	// awkLike: awk -f FILE runs the program in FILE (gawk -E too).
	awkLike = &signature{reads: all, patternFirst: true, patternOpts: "fEe", valueShort: "FvfEil", valueLong: []string{"file", "exec", "include", "load", "assign", "field-separator"}, abbrev: true,
		optionFiles: map[string]byte{"f": 'X', "E": 'X', "file": 'X', "exec": 'X', "include": 'X', "load": 'X'}}
)

// signatures is the table; see signatureOf for the names it covers. It is
// built on first use, not when the program starts.
var signatures = sync.OnceValue(func() map[string]*signature {
	return map[string]*signature{
		"cat": readAll, "tac": readAll, "nl": readAll, "head": {reads: all, valueShort: "nc", valueLong: []string{"lines", "bytes"}, abbrev: true},
		"tail": {reads: all, valueShort: "ncs", valueLong: []string{"lines", "bytes", "sleep-interval", "pid", "max-unchanged-stats"}, abbrev: true},
		"less": {reads: all, valueShort: "bhjkoOpPTxyz#", valueLong: []string{"log-file", "tag", "pattern"}, abbrev: true},
		"more": readAll, "most": readAll, "bat": readAll, "batcat": readAll, "view": readAll,
		"base64": readAll, "base32": readAll, "basenc": readAll, "xxd": readAll, "od": readAll, "hexdump": readAll, "hd": readAll, "strings": readAll,
		"wc": readAll, "sort": {reads: all, writes: none, valueShort: "otkSTy", valueLong: []string{"output", "key", "field-separator", "buffer-size", "temporary-directory", "compress-program", "files0-from", "parallel", "random-source"}, abbrev: true, optionFiles: map[string]byte{"o": 'w', "output": 'w', "compress-program": 'x'}},
		"uniq": readAll, "cut": readAll, "paste": readAll, "fold": readAll, "fmt": readAll, "rev": readAll, "expand": readAll, "column": readAll,
		"md5sum": readAll, "sha1sum": readAll, "sha256sum": readAll, "sha512sum": readAll, "b2sum": readAll, "cksum": readAll,
		"diff": readAll, "cmp": readAll, "comm": readAll, "file": readAll, "iconv": readAll, "gzip": readAll, "bzip2": readAll, "xz": readAll, "zstd": readAll,
		"zcat": readAll, "zless": readAll, "gpg": {reads: all, abbrev: true, valueShort: "oruk", valueLong: []string{"output", "recipient", "local-user", "homedir", "keyring", "secret-keyring"},
			impliedReads: map[string]string{"export-secret-keys": "~/.gnupg/private-keys-v1.d", "export-secret-subkeys": "~/.gnupg/private-keys-v1.d", "export-ssh-key": "~/.gnupg/private-keys-v1.d"}}, "split": readAll, "pr": readAll, "look": readAll,
		"grep": grepLike, "egrep": grepLike, "fgrep": grepLike, "zgrep": grepLike, "rg": {reads: all, patternFirst: true, patternOpts: "ef", valueShort: "efgtTmABCMj", valueLong: []string{"regexp", "file", "glob", "type", "type-not", "max-count", "pre", "pre-glob", "replace"}, optionFiles: map[string]byte{"pre": 'x'}},
		"ag":  {reads: all, patternFirst: true},
		"awk": awkLike, "gawk": awkLike, "mawk": awkLike, "nawk": awkLike,
		"sed": {reads: all, patternFirst: true, patternOpts: "ef", valueShort: "efl", abbrev: true, optionFiles: map[string]byte{"f": 'X', "file": 'X'}},
		"jq":  {reads: all, patternFirst: true, valueLong: []string{"arg", "argjson", "slurpfile", "rawfile", "indent"}}, "yq": {reads: all, patternFirst: true},
		"vi": {reads: all, writes: all}, "ex": {reads: all, writes: all}, "vimdiff": {reads: all, writes: all}, "gvim": {reads: all, writes: all}, "rvim": {reads: all}, "rview": {reads: all}, "ed": {reads: all, writes: all, valueShort: "p"},
		"sqlite3": {reads: first}, "sqlite": {reads: first},
		"sftp": {valueShort: "BbcDFiJloPRSs", optionFiles: map[string]byte{"S": 'x', "D": 'x', "F": 'X', "b": 'r'}},
		"ssh":  {valueShort: "BbcDEeFIiJLlmOopQRSWw", optionFiles: map[string]byte{"F": 'X', "E": 'w'}}, "vim": {reads: all, writes: all}, "nvim": {reads: all, writes: all}, "nano": {reads: all, writes: all}, "emacs": {reads: all, writes: all},
		"cp": copyLike, "install": {reads: butLast, writes: last, valueShort: "tSmogS", valueLong: []string{"target-directory", "mode", "owner", "group", "suffix"}, abbrev: true},
		"mv": moveLike, "ln": {reads: butLast, writes: last, valueShort: "tS", valueLong: []string{"target-directory", "suffix"}, abbrev: true},
		"rsync": {reads: butLast, writes: last, valueShort: "eBfT", valueLong: []string{"rsh", "rsync-path", "exclude", "include", "filter", "files-from", "temp-dir", "partial-dir", "backup-dir", "log-file", "password-file", "chown", "chmod"}, abbrev: true, optionFiles: map[string]byte{"e": 'x', "rsh": 'x', "rsync-path": 'x'}},
		"scp":   {reads: butLast, writes: last, valueShort: "cFiloPSJ", optionFiles: map[string]byte{"S": 'x', "F": 'X', "i": 'r'}},
		"tee":   writeAll, "sponge": writeAll, "touch": {writes: all, valueShort: "dtr", valueLong: []string{"date", "reference"}, abbrev: true}, "mkdir": {writes: all, valueShort: "m", valueLong: []string{"mode"}, abbrev: true},
		"truncate": {writes: all, valueShort: "sr", valueLong: []string{"size", "reference"}, abbrev: true},
		"chmod":    {writes: afterMode, abbrev: true}, "chown": {writes: afterMode, abbrev: true}, "chgrp": {writes: afterMode, abbrev: true}, "chattr": {writes: afterMode},
		// Disk tools write the device (or image file) they are given.
		"mkfs": diskTool, "mke2fs": diskTool, "mkswap": diskTool, "wipefs": diskTool, "fdisk": diskTool, "sfdisk": diskTool, "parted": diskTool, "blkdiscard": diskTool, "sgdisk": diskTool,
		"rm": deleteAll, "unlink": deleteAll, "rmdir": deleteAll, "shred": {deletes: all, writes: all, valueShort: "ns", valueLong: []string{"iterations", "size", "random-source"}, abbrev: true},
		"source": {execs: first}, ".": {execs: first},
		"sh": {execs: first}, "bash": {execs: first}, "dash": {execs: first}, "zsh": {execs: first}, "ksh": {execs: first}, "fish": {execs: first},
		"python": {execs: first, valueShort: "WX"}, "python3": {execs: first, valueShort: "WX"}, "ruby": {execs: first, valueShort: "rICE"}, "perl": {execs: first, valueShort: "eEIMm"},
		"node": {execs: first, valueShort: "r", valueLong: []string{"require", "import", "loader"}}, "php": {execs: first}, "lua": {execs: first}, "Rscript": {execs: first},
		"curl": {valueShort: "oTdHXuAeEKrmwxyYzbcDF", valueLong: []string{"output", "upload-file", "data", "data-binary", "data-raw", "data-urlencode", "header", "request", "user", "user-agent", "referer", "config", "cookie", "cookie-jar", "dump-header", "form", "proxy", "max-time", "connect-timeout", "retry", "cert", "key", "cacert", "trace", "trace-ascii", "stderr", "write-out"},
			abbrev: true, optionFiles: map[string]byte{"o": 'w', "output": 'w', "T": 'r', "upload-file": 'r', "K": 'r', "config": 'r', "c": 'w', "cookie-jar": 'w', "D": 'w', "dump-header": 'w', "trace": 'w', "stderr": 'w'}},
		"wget": {valueShort: "OoaPeitTwUQ", valueLong: []string{"output-document", "output-file", "append-output", "directory-prefix", "execute", "input-file", "post-file", "body-file", "user-agent", "header", "tries", "timeout", "wait"},
			abbrev: true, optionFiles: map[string]byte{"O": 'w', "output-document": 'w', "post-file": 'r', "body-file": 'r', "i": 'r', "input-file": 'r'}},
		"dd": {},
		// aria2c -o names the file it downloads (under -d's directory).
		"aria2c": {valueShort: "odixsjk", valueLong: []string{"out", "dir", "input-file", "max-connection-per-server", "split", "max-concurrent-downloads", "min-split-size"},
			optionFiles: map[string]byte{"o": 'w', "out": 'w', "i": 'r', "input-file": 'r'}},
		"tar": {reads: all, removes: map[string]bool{"remove-files": true}, valueShort: "fCbFIHgKLNTVX", valueLong: []string{"file", "directory", "use-compress-program", "to-command", "rsh-command", "info-script", "new-volume-script", "files-from", "exclude", "exclude-from", "transform", "xform", "owner", "group", "mode", "format", "checkpoint-action", "index-file", "listed-incremental", "newer", "after-date"},
			abbrev: true, optionFiles: map[string]byte{"I": 'x', "use-compress-program": 'x', "to-command": 'x', "checkpoint-action": 'e', "rsh-command": 'x', "F": 'x', "info-script": 'x', "new-volume-script": 'x', "T": 'r', "files-from": 'r'}},
		"zip":        {reads: butFirst, writes: first, removes: map[string]bool{"m": true, "move": true}, valueShort: "bnitx", valueLong: []string{"unzip-command"}, abbrev: true, optionFiles: map[string]byte{"TT": 'x', "unzip-command": 'x'}},
		"ssh-keygen": {valueShort: "fbtCNEIOZaDnrVwz", optionFiles: map[string]byte{"f": 'w'}, readsOnlyWith: "lyBe"},
		"make": {valueShort: "CfIjloWE", valueLong: []string{"directory", "file", "makefile", "include-dir", "jobs", "load-average", "old-file", "assume-old", "what-if", "new-file", "assume-new", "eval", "output-sync"}, abbrev: true,
			optionFiles: map[string]byte{"f": 'X', "file": 'X', "makefile": 'X', "E": 'x', "eval": 'x'}},
		"gmake":  {valueShort: "CfIjloWE", valueLong: []string{"directory", "file", "makefile", "include-dir", "jobs", "load-average", "old-file", "assume-old", "what-if", "new-file", "assume-new", "eval", "output-sync"}, abbrev: true, optionFiles: map[string]byte{"f": 'X', "file": 'X', "makefile": 'X', "E": 'x', "eval": 'x'}},
		"socat":  {},
		"rclone": {reads: butLast, writes: last, valueShort: "", abbrev: false},
		// cmake -P runs a script; -C preloads one that may run anything.
		"cmake": {valueShort: "PCDGTASBU", valueLong: []string{"build", "install", "preset", "toolchain", "install-prefix", "graphviz", "log-level", "target", "config", "parallel", "j"}, optionFiles: map[string]byte{"P": 'X', "C": 'X'},
			deletesAfter: map[string]bool{"rm": true, "remove": true, "remove_directory": true}},
		// 7z a -sdel deletes the files once archived (its options are one
		// dash and whole words).
		"7z": {reads: all, removes: map[string]bool{"-sdel": true}}, "7za": {reads: all, removes: map[string]bool{"-sdel": true}}, "7zz": {reads: all, removes: map[string]bool{"-sdel": true}},
		// nmap runs the Lua scripts --script names.
		"nmap": {valueShort: "oipDSegsb", valueLong: []string{"script", "script-args", "script-args-file", "datadir", "servicedb", "versiondb", "resume", "iL", "iR", "exclude", "excludefile"}, abbrev: true, optionFiles: map[string]byte{"script": 'X', "datadir": 'X'}},
		// kubectl saves the program a credential plugin runs (set-credentials
		// --exec-command), which every later kubectl call runs.
		"kubectl": {valueLong: []string{"exec-command", "context", "namespace", "kubeconfig", "output", "filename", "selector", "cluster", "user"}, optionFiles: map[string]byte{"exec-command": 'X'}},
		"man":     {valueShort: "PMLSCm", valueLong: []string{"pager", "manpath", "locale", "sections", "config-file", "html", "preprocessor"}, abbrev: true, optionFiles: map[string]byte{"P": 'x', "pager": 'x', "html": 'x', "H": 'x', "preprocessor": 'x'}},
	}
})

// signatureOf returns the signature of the command named name (a base
// name), or nil.
func signatureOf(name string) *signature {
	table := signatures()
	if s, ok := table[name]; ok {
		return s
	}
	if strings.HasPrefix(name, "mkfs.") {
		return table["mkfs"] // mkfs.ext4, mkfs.vfat
	}
	if t := strings.TrimRight(name, "0123456789."); t != name {
		return table[t] // python3.12, ruby3.2
	}
	return nil
}
