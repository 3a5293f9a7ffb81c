package policy

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// createDropDatabase: one statement that creates or drops one database
// (lower case), its name in group 1.
var createDropDatabase = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:drop|create)\s+database\s+(?:if\s+(?:not\s+)?exists\s+)?"?([a-z0-9_-]+)"?\s*;?\s*$`)
})

// devDatabase reports whether invocation i acts on a database that its
// name says is for development or test (app_test, myapp_dev, dev.db,
// db/test.sqlite3), kept on this machine: a file database in the workdir,
// or a server the command names as local or does not name at all (the
// default connection), with nothing in the script pointing the client
// elsewhere. A local server's test database is made again by the next
// test run; a database named otherwise (app, app_staging) may hold data no
// script made, and a server elsewhere is the world outside.
func (ctx *scriptCtx) devDatabase(i int, a *argv) bool {
	inv := &ctx.invs[i]
	if a.dynamicArg || ctx.redirectsServers(inv) {
		return false
	}
	switch a.name {
	case "sqlite3", "sqlite", "duckdb":
		// sqlite3 [OPTIONS] FILE [SQL...]: the first operand is the file,
		// unless the SQL attaches or opens another, or runs a program
		for _, w := range inv.Args {
			l := strings.ToLower(w)
			if strings.Contains(l, "attach") || strings.Contains(l, ".open") || strings.Contains(l, ".restore") || strings.Contains(l, ".read") ||
				strings.Contains(l, ".shell") || strings.Contains(l, ".system") || strings.Contains(l, ".import") || l == "-init" || l == "--init" {
				return false
			}
		}
		f := firstOperand(inv.Args, "cmd", "init", "separator", "newline", "nullvalue", "mode")
		if f == "" || strings.HasPrefix(f, "/") || strings.HasPrefix(f, "~") || strings.Contains(f, "..") || strings.Contains(f, "://") {
			return f == ":memory:"
		}
		base := strings.ToLower(path.Base(f))
		stem := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(base, ".sqlite3"), ".sqlite"), ".db"), ".duckdb")
		return devName(stem) || inTestDirectory(f, stem)
	case "psql":
		// psql -d DBNAME (or its first operand): a connection reaches one
		// database, unless the SQL names another (DROP DATABASE, \c,
		// dblink) or a program (\!, COPY ... PROGRAM)
		dbStatements := false
		for _, w := range inv.Args {
			l := strings.ToLower(w)
			if m := createDropDatabase().FindStringSubmatch(l); m != nil {
				// DROP DATABASE IF EXISTS app_test: one statement, a test database
				if !devName(m[1]) {
					return false
				}
				dbStatements = true
				continue
			}
			if _, ok := localPostgresURL(w); ok {
				continue // read as the connection below
			}
			if strings.Contains(l, "database") || strings.Contains(l, `\c`) || strings.Contains(l, "dblink") || strings.Contains(l, "fdw") ||
				strings.Contains(l, "program") || strings.Contains(l, `\!`) || strings.Contains(l, "://") || strings.Contains(l, "host=") || strings.Contains(l, "service=") {
				return false
			}
		}
		db := ""
		for _, w := range serverWords(inv, func(opt string) bool {
			return opt == "-h" || opt == "--host" || opt == "-p" || opt == "--port" || opt == "-U" || opt == "--username" || opt == "-d" || opt == "--dbname" ||
				opt == "-c" || opt == "--command" || opt == "-f" || opt == "--file" || opt == "-v" || opt == "--variable" || opt == "--set" || opt == "-o" || opt == "--output"
		}) {
			switch w.opt {
			case "-h", "--host":
				if !localAddress(w.value) && !strings.HasPrefix(w.value, "/") {
					return false
				}
			case "-d", "--dbname", "":
				if name, ok := localPostgresURL(w.value); ok {
					w.value = name
				}
				if db == "" {
					db = w.value
				}
			}
		}
		return devName(strings.ToLower(db)) || db == "" && dbStatements
	case "dropdb", "createdb":
		// dropdb [OPTIONS] DBNAME: a host given must be this machine's
		named := false
		for _, w := range serverWords(inv, func(opt string) bool {
			return opt == "-h" || opt == "--host" || opt == "-p" || opt == "--port" || opt == "-U" || opt == "--username" || opt == "--maintenance-db" || opt == "-T" || opt == "--template" || opt == "-E" || opt == "--encoding" || opt == "-O" || opt == "--owner" || opt == "-l" || opt == "--locale" || opt == "-D" || opt == "--tablespace"
		}) {
			switch w.opt {
			case "-h", "--host":
				if !localAddress(w.value) && !strings.HasPrefix(w.value, "/") {
					return false
				}
			case "--maintenance-db":
				if strings.Contains(w.value, "=") || strings.Contains(w.value, "://") {
					return false
				}
			case "":
				if named || !devName(strings.ToLower(w.value)) {
					return false
				}
				named = true
			}
		}
		return named
	case "mongosh", "mongo":
		return mongoDevDatabase(inv) // Round 13 (local_work.go)
	case "docker", "podman", "nerdctl":
		return devVolumes(inv) // Round 22 (dev_volume.go)
	}
	return false
}

// localPostgresURL returns the database a libpq connection URL names when
// the URL is for a server on this machine and carries no parameters (a
// ?host= would name another server): postgresql://postgres@localhost/app_test
// is app_test. Round 16.
func localPostgresURL(w string) (db string, ok bool) {
	rest, found := strings.CutPrefix(w, "postgresql://")
	if !found {
		rest, found = strings.CutPrefix(w, "postgres://")
	}
	if !found || strings.ContainsAny(rest, "?#") || !localAddress(w) {
		return "", false
	}
	_, db, _ = strings.Cut(rest, "/")
	return db, db != "" && !strings.Contains(db, "/")
}

// firstOperand returns the first word of args that is not an option or the
// value of one of the long options named (sqlite3 -cmd X, -init FILE).
func firstOperand(args []string, valued ...string) string {
	for j := 0; j < len(args); j++ {
		w := args[j]
		if w == "--" {
			if j+1 < len(args) {
				return args[j+1]
			}
			return ""
		}
		if strings.HasPrefix(w, "-") && len(w) > 1 {
			name := strings.TrimLeft(w, "-")
			for _, v := range valued {
				if name == v {
					j++
					break
				}
			}
			continue
		}
		return w
	}
	return ""
}

// devName: a database name that says development or test: test, dev,
// development, ci, or one of them as a part of the name (app_test,
// myapp-dev, test_app, app_test_2, dev.db's stem dev), and no part that
// says production, staging or a backup.
func devName(n string) bool {
	if n == "" {
		return false
	}
	dev := false
	for part := range strings.FieldsFuncSeq(n, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		switch strings.TrimRight(part, "0123456789") {
		case "test", "tests", "testing", "dev", "development", "ci", "e2e", "spec":
			dev = true
		case "prod", "production", "staging", "stage", "live", "main", "master", "primary", "backup":
			return false // test_prod, app_dev_backup: not only a test's
		}
	}
	return dev
}
