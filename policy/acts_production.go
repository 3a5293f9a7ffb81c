package policy

import (
	"strings"

	"github.com/stockade/stockade/parse"
)

// Round 12: commands told to work on production or on a database
// elsewhere. An application's own tools (rails, manage.py, mix, a
// migration tool, go run ./cmd/admin) work on whatever database their
// environment or options name; given production's (RAILS_ENV=production,
// DJANGO_SETTINGS_MODULE=app.settings.prod, --env prod, a database URL on
// another host or in a variable named for production), a migration, a
// data task or inline code changes production's data. Building for
// production (assets:precompile, mix release, collectstatic) and checking
// (db:migrate:status, check --deploy) change nothing there.

// envNames choose an application's environment; settingsNames its
// settings module; databaseEnv the database it connects to.
var envNames = map[string]bool{
	"RAILS_ENV": true, "RACK_ENV": true, "MIX_ENV": true, "APP_ENV": true, "FLASK_ENV": true, "DJANGO_ENV": true, "ENVIRONMENT": true, "ENV": true,
	"STAGE": true, "DEPLOY_ENV": true, "ASPNETCORE_ENVIRONMENT": true, "DOTNET_ENVIRONMENT": true, "SPRING_PROFILES_ACTIVE": true, "APP_ENVIRONMENT": true,
	"LARAVEL_ENV": true, "GO_ENV": true, "RUN_ENV": true, "DBT_TARGET": true,
}

// productionValue reports whether an environment's or a settings module's
// name, or a variable's, says production or a shared remote stage
// (production, prod, app.settings.prod, $PRODUCTION_DATABASE_URL).
func productionValue(v string) bool {
	v = strings.ToLower(v)
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') }) {
		switch f {
		case "prod", "production", "prd", "live", "staging", "stage", "stg", "remote":
			return true
		}
	}
	return false
}

// databaseURLName: a variable that names a database server or its URL
// (DATABASE_URL, REDIS_URL, DB_HOST, MONGODB_URI, PGHOST).
func databaseURLName(k string) bool {
	k = strings.ToUpper(k)
	return strings.HasSuffix(k, "DATABASE_URL") || strings.HasSuffix(k, "_DB_URL") || strings.HasSuffix(k, "_DSN") || k == "DSN" ||
		k == "DB_HOST" || k == "DATABASE_HOST" || k == "PGHOST" || k == "MYSQL_HOST" || k == "REDIS_URL" || k == "MONGO_URL" ||
		strings.HasSuffix(k, "MONGODB_URI") || k == "DB_URL"
}

// remoteDatabase reports whether a database's address or URL, as written,
// names production or another host: a variable named for production, or a
// host with a domain that is not this machine (a bare name such as db is
// a service of the project's compose file).
func remoteDatabase(v string, dynamic bool) bool {
	if dynamic || strings.ContainsAny(v, "$`") {
		return productionValue(v)
	}
	u := v
	if scheme, rest, ok := strings.Cut(u, "://"); ok {
		if s := strings.ToLower(scheme); strings.HasPrefix(s, "sqlite") || s == "file" || s == "duckdb" || s == "jdbc:sqlite" || s == "jdbc:h2" {
			return false // a file on this machine (sqlite://dev.db)
		}
		u = rest
	} else if strings.Contains(u, "=") || !strings.Contains(u, ".") {
		return strings.Contains(u, "host=") && !strings.Contains(u, "host=localhost") && !strings.Contains(u, "host=127.") && !strings.Contains(u, "host=/")
	}
	hostPort, _, _ := strings.Cut(u, "/")
	if at := strings.LastIndexByte(hostPort, '@'); at >= 0 {
		hostPort = hostPort[at+1:]
	}
	host, _, _ := strings.Cut(hostPort, ":")
	if host == "" || !strings.Contains(host, ".") {
		return false
	}
	return !localAddress(host)
}

// dataWords, among an application tool's words, change a database or run
// code against it (db:migrate, ecto.migrate, migrate, shell, runner,
// purge-users); readWords among them only look (db:migrate:status).
var dataWords = map[string]bool{
	"migrate": true, "rollback": true, "seed": true, "reset": true, "drop": true, "setup": true, "load": true, "purge": true, "truncate": true,
	"flush": true, "loaddata": true, "shell": true, "dbshell": true, "runner": true, "console": true, "upgrade": true, "downgrade": true,
	"up": true, "down": true, "push": true, "deploy": true, "execute": true, "sql": true, "restore": true, "import": true,
	"delete": true, "remove": true, "destroy": true, "send": true, "notify": true, "update": true, "repair": true, "baseline": true, "clean": true,
	"apply": true, "createsuperuser": true, "changepassword": true, "backfill": true, "wipe": true, "erase": true,
}

var dataReadWords = map[string]bool{
	"status": true, "version": true, "info": true, "validate": true, "check": true, "show": true, "list": true, "showmigrations": true, "diff": true,
	"history": true, "current": true, "heads": true, "help": true, "makemigrations": true, "new": true, "generate": true, "g": true,
}

// productionActs returns actProduction when invocation inv, run with env,
// is told to work on production or on a database elsewhere, and one of its
// words changes data or runs code there.
func productionActs(inv *parse.Invocation, a *argv, env []string) act {
	if httpClients[a.name] || grpcClients[a.name] {
		return 0 // judged by the request they send (acts_api.go, grpcActs)
	}
	for _, p := range a.positionals {
		if k, _, ok := strings.Cut(p, "="); ok && (envNames[k] || databaseURLName(k)) {
			env = append(env[:len(env):len(env)], p) // rake db:migrate RAILS_ENV=production
		}
	}
	target := false
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		switch {
		case envNames[k], k == "DJANGO_SETTINGS_MODULE", strings.HasSuffix(k, "_SETTINGS_MODULE"):
			target = target || productionValue(v)
		case databaseURLName(k):
			target = target || remoteDatabase(v, strings.ContainsAny(v, "$`"))
		}
	}
	named := false
	for _, w := range inv.Args {
		if len(w) > 1 && w[0] == '-' {
			opt, _, _ := strings.Cut(w, "=")
			named = named || productionOption(opt) || configOption(opt) || opt == "--target" || opt == "-t" && toolDataWords[a.name] != nil
		}
	}
	var words []serverWord
	if named {
		words = serverWords(inv, func(opt string) bool {
			return productionOption(opt) || configOption(opt) || opt == "--target" || opt == "-t" && toolDataWords[a.name] != nil
		})
	}
	for _, w := range words {
		opt := strings.TrimLeft(w.opt, "-")
		switch {
		case opt == "env" || opt == "environment" || opt == "stage" || opt == "settings" || opt == "profile" && a.name != "aws" ||
			opt == "e" && (a.name == "rails" || a.name == "rake"):
			target = target || productionValue(w.value)
		case configOption(opt), opt == "target" || opt == "t" && toolDataWords[a.name] != nil:
			// Round 13: a configuration file or a target named for
			// production (flyway -configFiles=conf/prod.conf, dbt --target prod)
			target = target || productionValue(w.value)
		case opt == "url" || opt == "database-url" || opt == "db-url" || opt == "database" || opt == "dsn" || opt == "connection-string" || opt == "uri",
			databaseWriters[a.name] && (opt == "d" || opt == "dbname" || opt == "h" || opt == "host"):
			target = target || remoteDatabase(w.value, w.dyn)
		}
	}
	if !target {
		return 0
	}
	if databaseWriters[a.name] {
		return actProduction
	}
	changes := false
	for _, p := range a.positionals {
		if strings.ContainsAny(p, " ;(") || strings.Contains(p, "/") {
			continue // inline code, a path: not a verb
		}
		for _, part := range strings.FieldsFunc(strings.ToLower(p), func(r rune) bool { return r == ':' || r == '.' || r == '-' || r == '_' }) {
			if dataReadWords[part] {
				return 0
			}
			changes = changes || dataWords[part]
		}
		changes = changes || toolDataWords[a.name][p]
	}
	if changes {
		return actProduction
	}
	return 0
}

// productionOption: options that name an environment, settings or a
// database and take the next word.
func productionOption(opt string) bool {
	switch strings.TrimLeft(opt, "-") {
	case "env", "environment", "stage", "settings", "profile", "e", "url", "database-url", "db-url", "database", "dsn", "connection-string", "uri", "d", "dbname", "host":
		return true
	}
	return false
}

// databaseWriters write a whole database from a dump, or drop its objects
// first (pg_restore --clean -d ..., mongorestore --drop): aimed at a
// database elsewhere, what was there is gone.
var databaseWriters = map[string]bool{"pg_restore": true, "mongorestore": true, "myloader": true, "pgloader": true,
	// Round 13: loaders that write a file's rows into a collection or table
	"mongoimport": true, "mysqlimport": true}

// grpcClients call a method on a gRPC server (grpcurl host:443 pkg.Svc/Method).
var grpcClients = map[string]bool{"grpcurl": true, "grpc_cli": true, "buf": true, "evans": true}

// grpcChangeVerbs begin the name of a method that changes something
// (DeleteUser, CreateOrder, SendMessage).
var grpcChangeVerbs = []string{"Delete", "Create", "Update", "Remove", "Set", "Put", "Patch", "Send", "Purge", "Drop", "Cancel", "Transfer", "Refund",
	"Insert", "Write", "Add", "Revoke", "Disable", "Enable", "Terminate", "Destroy", "Reset", "Upsert", "Modify", "Grant", "Publish", "Deploy", "Scale", "Restart"}

// grpcActs returns actRemoteChange when a gRPC client calls a method named
// for a change on a server that is not this machine.
func grpcActs(inv *parse.Invocation, a *argv) act {
	if !grpcClients[a.name] || a.name == "buf" && (len(a.positionals) == 0 || a.positionals[0] != "curl") {
		return 0
	}
	remote, change := false, false
	for i, w := range inv.Args {
		if strings.HasPrefix(w, "-") || i > 0 && (inv.Args[i-1] == "-d" || inv.Args[i-1] == "-H" || inv.Args[i-1] == "-rpc-header" || inv.Args[i-1] == "-import-path" || inv.Args[i-1] == "-proto" || inv.Args[i-1] == "--data") {
			continue
		}
		w = strings.Trim(w, `"'`)
		method := w[strings.LastIndexAny(w, "/.")+1:]
		for _, v := range grpcChangeVerbs {
			if strings.HasPrefix(method, v) && (len(method) == len(v) || method[len(v)] >= 'A' && method[len(v)] <= 'Z') && strings.ContainsAny(w, "/.") {
				change = true
			}
		}
		if strings.Contains(w, ":") || strings.Contains(w, "://") {
			host := w
			if _, rest, ok := strings.Cut(host, "://"); ok {
				host = rest
			}
			host, _, _ = strings.Cut(host, "/")
			if h, _, _ := strings.Cut(host, ":"); strings.Contains(h, ".") || h == "" {
				remote = remote || inv.DynamicArgs != nil && i < len(inv.DynamicArgs) && inv.DynamicArgs[i] || !localAddress(host)
			}
		}
	}
	if remote && change {
		return actRemoteChange
	}
	return 0
}

// redisCommand returns the command a redis-cli invocation sends, past the
// options and their values (redis-cli -u "$URL" --scan del k: del).
func redisCommand(inv *parse.Invocation) string {
	valued := map[string]bool{"-h": true, "-p": true, "-s": true, "-a": true, "-u": true, "-n": true, "-r": true, "-i": true, "-d": true, "--user": true,
		"--pass": true, "--pattern": true, "--count": true, "--quoted-pattern": true, "--tls-cert": true, "--tls-key": true, "--cacert": true,
		"--cacertdir": true, "--sni": true, "--rdb": true, "--functions-rdb": true, "--eval": true, "--memkeys-samples": true, "-D": true, "-e": false,
		"--askpass": false, "--csv": false, "--raw": false, "--no-raw": false, "--scan": false, "--bigkeys": false, "--tls": false, "-c": false, "-x": false}
	for i := 0; i < len(inv.Args); i++ {
		w := inv.Args[i]
		if strings.HasPrefix(w, "-") {
			if valued[w] {
				i++
			}
			continue
		}
		if inv.DynamicArgs != nil && i < len(inv.DynamicArgs) && inv.DynamicArgs[i] {
			return ""
		}
		return strings.ToLower(w)
	}
	return ""
}

// redisActs: a command that deletes keys is actDestroy, wherever the
// options put it.
func redisActs(inv *parse.Invocation, a *argv) act {
	if a.name != "redis-cli" && a.name != "valkey-cli" && a.name != "keydb-cli" {
		return 0
	}
	switch redisCommand(inv) {
	case "del", "unlink", "flushdb", "flushall", "getdel", "hdel", "srem", "zrem", "zremrangebyscore", "zremrangebyrank", "ltrim", "xtrim", "xdel", "expire", "pexpire":
		return actDestroy
	}
	return 0
}
