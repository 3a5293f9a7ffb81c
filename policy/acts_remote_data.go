package policy

import (
	"regexp"
	"strings"
	"sync"

	"github.com/stockade/stockade/parse"
)

// Round 13: data sent to or changed in a store on another host, and
// commands run there. A message broker's producer (kafka-console-producer,
// kcat -P, mosquitto_pub, nats pub), a key-value store's write (redis-cli
// -h cache.example SET), a warehouse's load or DML (bq load, bq query
// 'DELETE ...') and a remote shell given commands that change the host
// (ssh host <<EOF ... EOF) act outside the sandbox, in the user's name. The
// same tools pointed at this machine (the default: localhost, or a bare
// name such as kafka or redis, a service of the project's compose file)
// are everyday work and stay allowed, and so does reading (bq query
// 'SELECT ...', ssh host uptime).

// remoteDataKind says how remoteDataActs reads a tool's arguments.
type remoteDataKind uint8

const (
	kindProducer     remoteDataKind = iota + 1 // sends whatever it runs (kafka-console-producer, mosquitto_pub)
	kindKcat                                   // produces with -P
	kindKafkaAdmin                             // changes topics, configs, offsets with --create, --alter, --delete, --execute
	kindBrokerVerbs                            // a CLI whose verbs produce or change (rpk topic produce, nats pub, rabbitmqadmin publish)
	kindRedis                                  // redis-cli and its forks
	kindWarehouse                              // bq
	kindRemoteShell                            // ssh and its parallel forms
	kindNotifier                               // sends a notification whenever it runs (apprise, telegram-send)
	kindFileTransfer                           // sftp, lftp, ftp: their commands upload or delete
)

// remoteDataTools are the tools remoteDataActs knows, looked up once by
// name before any argument is read.
var remoteDataTools = map[string]remoteDataKind{
	"kafka-console-producer": kindProducer, "kafka-producer-perf-test": kindProducer, "kafka-verifiable-producer": kindProducer,
	"mosquitto_pub": kindProducer, "amqp-publish": kindProducer, "kcat": kindKcat, "kafkacat": kindKcat,
	"kafka-topics": kindKafkaAdmin, "kafka-configs": kindKafkaAdmin, "kafka-consumer-groups": kindKafkaAdmin, "kafka-acls": kindKafkaAdmin,
	"kafka-delete-records": kindKafkaAdmin, "kafka-reassign-partitions": kindKafkaAdmin, "kafka-leader-election": kindKafkaAdmin,
	"rpk": kindBrokerVerbs, "kaf": kindBrokerVerbs, "nats": kindBrokerVerbs, "rabbitmqadmin": kindBrokerVerbs, "pulsar-client": kindBrokerVerbs,
	"pulsar-admin": kindBrokerVerbs, "influx": kindBrokerVerbs, "redis-cli": kindRedis, "valkey-cli": kindRedis, "keydb-cli": kindRedis, "bq": kindWarehouse,
	"snowsql": kindWarehouse, "snow": kindWarehouse, "trino": kindWarehouse, "presto": kindWarehouse, "beeline": kindWarehouse,
	"impala-shell": kindWarehouse, "vsql": kindWarehouse, "sqlplus": kindWarehouse, "apprise": kindNotifier, "telegram-send": kindNotifier,
	"sftp": kindFileTransfer, "lftp": kindFileTransfer, "ftp": kindFileTransfer, "tnftp": kindFileTransfer, "ncftpput": kindFileTransfer,
	"ssh": kindRemoteShell, "autossh": kindRemoteShell, "mssh": kindRemoteShell, "tsh": kindRemoteShell, "pssh": kindRemoteShell, "parallel-ssh": kindRemoteShell, "pdsh": kindRemoteShell, "clush": kindRemoteShell,
}

// brokerAddressOptions name the broker, server or host a client talks to.
var brokerAddressOptions = map[string]bool{
	"--bootstrap-server": true, "--broker-list": true, "--brokers": true, "-b": true, "-h": true, "--host": true, "-H": true, "-s": true,
	"--server": true, "-u": true, "--url": true, "-L": true, "--base-uri": true, "-U": true, "--admin-url": true, "--service-url": true,
}

// brokerChangeVerbs, among a broker CLI's leading words, send messages
// or change topics, streams, queues and their data.
var brokerChangeVerbs = map[string]bool{
	"produce": true, "pub": true, "publish": true, "request": true, "req": true, "put": true, "del": true, "rm": true, "delete": true,
	"purge": true, "create": true, "add": true, "edit": true, "alter-config": true, "add-partitions": true, "trim-prefix": true, "seek": true,
	"declare": true, "close": true, "set": true, "commit": true, "send": true, "update": true, "truncate": true, "reset": true,
	"write": true,
}

// redisWrites are redis commands that store or change data, or the
// server (the deleting ones are redisActs').
var redisWrites = map[string]bool{
	"set": true, "setex": true, "psetex": true, "setnx": true, "mset": true, "msetnx": true, "getset": true, "append": true, "incr": true,
	"incrby": true, "incrbyfloat": true, "decr": true, "decrby": true, "hset": true, "hmset": true, "hsetnx": true, "hincrby": true,
	"lpush": true, "rpush": true, "lpushx": true, "rpushx": true, "linsert": true, "lset": true, "lpop": true, "rpop": true, "lrem": true,
	"lmove": true, "rpoplpush": true, "sadd": true, "spop": true, "smove": true, "zadd": true, "zincrby": true, "zpopmin": true,
	"zpopmax": true, "xadd": true, "xgroup": true, "publish": true, "spublish": true, "rename": true, "renamenx": true, "restore": true,
	"migrate": true, "move": true, "copy": true, "persist": true, "json.set": true, "json.del": true, "eval": true, "evalsha": true,
	"fcall": true, "function": true, "script": true, "config": true, "acl": true, "shutdown": true, "replicaof": true, "slaveof": true,
	"client": true, "debug": true, "module": true, "bgsave": true, "save": true, "pfadd": true, "setrange": true, "setbit": true,
	"geoadd": true, "bf.add": true, "ts.add": true,
}

// remoteDataActs returns actRemoteChange when invocation inv sends data
// to, or changes data or commands on, a server that is not this machine.
func remoteDataActs(inv *parse.Invocation, a *argv) act {
	kind := remoteDataTools[strings.TrimSuffix(a.name, ".sh")]
	if kind == 0 && hostedCLIs[a.name] {
		if a.name == "az" && a.subcommand == "rest" {
			return azRestActs(inv)
		}
		return hostedShellActs(inv)
	}
	if kind == 0 || len(inv.Args) == 0 {
		return 0
	}
	switch kind {
	case kindRedis:
		c := redisCommand(inv)
		if (redisWrites[c] || c == "" && redisStdinCommands(inv, a)) && serverElsewhere(inv, map[string]bool{"-h": true, "-u": true}) {
			return actRemoteChange // a write, or commands from standard input (--pipe < cmds.txt)
		}
		return 0
	case kindWarehouse:
		return warehouseActs(inv, a)
	case kindRemoteShell:
		return remoteShellActs(inv, a)
	case kindFileTransfer:
		return fileTransferActs(inv, a)
	case kindNotifier:
		if a.hasFlagWord("--version", "-V", "--configure", "--format") && len(a.positionals) == 0 {
			return 0
		}
		return actSend
	case kindKcat:
		if !a.hasShort('P') {
			return 0
		}
	case kindKafkaAdmin:
		if !a.hasFlagWord("--create", "--alter", "--delete", "--execute", "--add", "--remove", "--offset-json-file") && a.name != "kafka-delete-records" {
			return 0
		}
	case kindBrokerVerbs:
		change := false
		for _, w := range leadingWords(inv, a) {
			change = change || brokerChangeVerbs[w]
		}
		if !change {
			return 0
		}
	}
	if serverElsewhere(inv, brokerAddressOptions) {
		return actRemoteChange
	}
	return 0
}

// serverElsewhere reports whether one of the options opts names a server
// that is not this machine: a host with a domain or an address that is
// not a loopback one, one that says production (prodhost, redis-prod),
// or a value known only at run time that does not say it is local.
func serverElsewhere(inv *parse.Invocation, opts map[string]bool) bool {
	dyn := func(j int) bool { return inv.DynamicArgs != nil && j < len(inv.DynamicArgs) && inv.DynamicArgs[j] }
	for j := 0; j < len(inv.Args); j++ {
		w := inv.Args[j]
		if len(w) < 2 || w[0] != '-' {
			continue
		}
		var v string
		d := false
		switch opt, val, hasVal := strings.Cut(w, "="); {
		case hasVal && opts[opt]:
			v, d = val, dyn(j)
		case opts[w] && j+1 < len(inv.Args):
			v, d = inv.Args[j+1], dyn(j+1)
			j++
		case w[1] != '-' && len(w) > 2 && opts[w[:2]]:
			v, d = w[2:], dyn(j)
		case w == "-X" && j+1 < len(inv.Args) && strings.HasPrefix(inv.Args[j+1], "brokers="):
			_, v, _ = strings.Cut(inv.Args[j+1], "brokers=") // rpk -X brokers=a:9092
			d = dyn(j + 1)
			j++
		case strings.HasPrefix(w, "-X") && strings.Contains(w, "brokers="):
			_, v, _ = strings.Cut(w, "brokers=") // rpk -X brokers=a:9092
			d = dyn(j)
		default:
			continue
		}
		if addressElsewhere(v, d) {
			return true
		}
	}
	return false
}

// addressElsewhere: one address or a comma-separated list of them, with
// or without a scheme and a user, as serverElsewhere reads it.
func addressElsewhere(v string, dyn bool) bool {
	v = strings.Trim(v, `"'`)
	if dyn || strings.ContainsAny(v, "$`") {
		l := strings.ToLower(v)
		return !strings.Contains(l, "localhost") && !strings.Contains(l, "127.0.0.1") && !strings.Contains(l, "local") && !strings.Contains(l, "dev") && !strings.Contains(l, "test")
	}
	for _, one := range strings.Split(v, ",") {
		if _, rest, ok := strings.Cut(one, "://"); ok {
			one = rest
		}
		hostPort, _, _ := strings.Cut(one, "/")
		if at := strings.LastIndexByte(hostPort, '@'); at >= 0 {
			hostPort = hostPort[at+1:]
		}
		host := hostPort
		if !strings.HasPrefix(host, "[") {
			host, _, _ = strings.Cut(host, ":")
		}
		if host == "" {
			continue
		}
		if strings.Contains(host, ".") && !localAddress(host) || productionHost(host) {
			return true
		}
	}
	return false
}

// productionHost reports whether a host's name says production or a
// shared stage (prodhost, redis-prod, db.staging): one of its parts
// starts with prod (but not product, produce) or is a stage's name.
func productionHost(host string) bool {
	for _, f := range strings.FieldsFunc(strings.ToLower(host), func(r rune) bool { return !('a' <= r && r <= 'z') }) {
		if strings.HasPrefix(f, "prod") && (!strings.HasPrefix(f, "produc") || f == "production") || f == "prd" || f == "live" || f == "staging" || f == "stg" {
			return true
		}
	}
	return false
}

// warehouseDML: SQL that changes a table or a schema.
var warehouseDML = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?i)\\b(insert\\s+(into\\s+)?[\\w.`\"]+|update\\s+[\\w.`\"]+\\s+set|delete\\s+from|merge\\s+(into\\s+)?[\\w.`\"]+|truncate\\s+table|drop\\s+(table|view|schema|dataset)|create\\s+(or\\s+replace\\s+)?(temp\\s+|temporary\\s+)?(table|view|schema|function|procedure)|alter\\s+(table|schema|view))\\b")
})

// warehouseChangeVerbs are bq's commands that write or remove tables,
// datasets and their data.
var warehouseChangeVerbs = map[string]bool{
	"load": true, "insert": true, "mk": true, "rm": true, "cp": true, "update": true, "truncate": true, "undelete": true, "extract": true,
	"set-iam-policy": true, "add-iam-policy-binding": true, "remove-iam-policy-binding": true,
}

// warehouseActs: bq load, insert, mk, rm, cp; bq query with DML or a
// destination table. bq query 'SELECT ...' only reads.
func warehouseActs(inv *parse.Invocation, a *argv) act {
	w := leadingWords(inv, a)[0]
	if a.name != "bq" {
		// snowsql -q, trino --execute, snow sql -q: the SQL they are given
		if a.hasFlagWord("--server", "--host", "-h") && !serverElsewhere(inv, map[string]bool{"--server": true, "--host": true, "-h": true}) {
			return 0 // a warehouse on this machine (trino --server localhost:8080)
		}
		w = "query"
	} else if warehouseChangeVerbs[w] {
		return actRemoteChange
	}
	if w != "query" {
		return 0
	}
	if containsLong(a.longs, "destination_table") || containsLong(a.longs, "replace") || containsLong(a.longs, "append_table") || containsLong(a.longs, "schedule") {
		return actRemoteChange
	}
	for _, s := range inv.Args {
		if len(s) > 6 && warehouseDML().MatchString(s) {
			return actRemoteChange
		}
	}
	return 0
}

// remoteShellActs returns actRemoteChange when ssh (or pssh, pdsh,
// clush) runs commands on another machine that may change it: a command
// that is not only reading (ssh host uptime), or a script given on
// standard input (a here-document, a file, a pipe), which is judged the
// same way when the analysis sees it.
func remoteShellActs(inv *parse.Invocation, a *argv) act {
	if a.name == "tsh" {
		// tsh ssh [opts] host cmd: Teleport's ssh, read as ssh
		if len(inv.Args) < 2 || inv.Args[0] != "ssh" {
			return 0
		}
		sub := *inv
		sub.Args = inv.Args[1:]
		if len(inv.DynamicArgs) > 1 {
			sub.DynamicArgs = inv.DynamicArgs[1:]
		}
		inv = &sub
	}
	hostFirst := a.name == "ssh" || a.name == "autossh" || a.name == "mssh" || a.name == "tsh"
	valued := "BbcDEeFIiJLlmOoPpQRSWw"
	switch {
	case !hostFirst:
		valued = "hHlptoeExXOwgRSu"
	case a.name == "autossh":
		valued += "M" // autossh -M 20000: its monitoring port
	case a.name == "mssh":
		valued += "rzu" // mssh -r region -z zone -u profile
	}
	var cmd []string
	for j := 0; j < len(inv.Args); j++ {
		w := inv.Args[j]
		if len(cmd) == 0 && len(w) > 1 && w[0] == '-' {
			if w == "--" {
				continue
			}
			if w[1] != '-' && shortTakesNext(w, valued) {
				j++ // -p 22, -i key, -o Opt=x
			}
			continue
		}
		if hostFirst {
			hostFirst = false
			if localAddress(w) || loopbackHost(w) {
				return 0 // this machine: the sandbox's own rules judge what runs here
			}
			continue
		}
		if inv.DynamicArgs != nil && j < len(inv.DynamicArgs) && inv.DynamicArgs[j] {
			return actRemoteChange // a command known only at run time
		}
		cmd = append(cmd, w)
	}
	if hostFirst {
		return 0 // no host: ssh -V, ssh -G
	}
	text := strings.Join(cmd, " ")
	stdin, known := "", true
	for _, r := range inv.Redirects {
		if r.FD != "" && r.FD != "0" {
			continue
		}
		switch r.Op {
		case "<<", "<<-", "<<<":
			stdin, known = r.Target, !r.Dynamic
		case "<", "<>":
			known = false
		}
	}
	reads := len(cmd) == 0 || remoteTextReads(text)
	if len(cmd) == 0 || remoteShellReadsStdin(cmd) {
		switch {
		case !known:
			return actRemoteChange // a script from a file or a variable
		case stdin != "":
			reads = reads && remoteTextReads(stdin)
		case inv.PipedInto:
			return actRemoteChange // a script from the pipe
		}
	}
	if reads {
		return 0
	}
	return actRemoteChange
}

// remoteShellReadsStdin: a remote command that is a shell or an
// interpreter reading its program from standard input (bash -s, sh,
// python3 -).
func remoteShellReadsStdin(cmd []string) bool {
	f := strings.Fields(cmd[0])
	if len(f) == 0 {
		return false
	}
	n := commandName(f[0])
	if n == "sudo" && len(f) > 1 {
		n = commandName(f[1])
	}
	return isShell(n) || isInterpreter(n)
}

// remoteReadOnly are commands that only look at the machine they run on;
// remoteReadTools only look when their subcommand does (docker ps,
// systemctl status, git log).
var remoteReadOnly = map[string]bool{
	"uptime": true, "df": true, "du": true, "free": true, "ls": true, "ll": true, "cat": true, "head": true, "tail": true, "less": true,
	"more": true, "grep": true, "egrep": true, "fgrep": true, "zgrep": true, "zcat": true, "rg": true, "wc": true, "sort": true, "uniq": true,
	"cut": true, "ps": true, "pgrep": true, "w": true, "who": true, "whoami": true, "id": true, "hostname": true, "uname": true, "date": true,
	"echo": true, "printf": true, "pwd": true, "cd": true, "stat": true, "file": true, "which": true, "type": true, "test": true, "[": true,
	"true": true, "false": true, "sleep": true, "dmesg": true, "lsblk": true, "lscpu": true, "lsof": true, "ss": true, "netstat": true,
	"ping": true, "dig": true, "nslookup": true, "host": true, "getent": true, "nproc": true, "vmstat": true, "iostat": true, "mpstat": true,
	"sar": true, "md5sum": true, "sha256sum": true, "sha1sum": true, "readlink": true, "realpath": true, "basename": true, "dirname": true,
	"tree": true, "last": true, "lastlog": true, "nvidia-smi": true, "sensors": true, "jq": true, "yq": true, "column": true, "tac": true,
	"nl": true, "xxd": true, "hexdump": true, "od": true, "strings": true, "journalctl": true, "top": true, "exit": true,
	"groups": true, "locale": true, "arch": true, "tr": true, "awk": true, "sed": true, "find": true, "ip": true, "timedatectl": true,
}

var remoteReadTools = map[string]bool{
	"docker": true, "podman": true, "kubectl": true, "systemctl": true, "git": true, "service": true, "crontab": true, "hostnamectl": true,
	"nerdctl": true, "helm": true, "supervisorctl": true, "pm2": true, "nginx": true, "apt": true, "dpkg": true, "rpm": true, "pip": true, "npm": true,
}

var remoteReadSubs = map[string]bool{
	"ps": true, "images": true, "stats": true, "port": true, "events": true, "is-active": true, "is-enabled": true, "is-failed": true,
	"list-units": true, "list-timers": true, "list-unit-files": true, "rev-parse": true, "ls-files": true, "blame": true, "shortlog": true,
	"-l": true, "-t": true, "-v": true, "-V": true, "--version": true, "-q": true, "-l1": true, "jlist": true, "avail": true, "freeze": true,
	"describe": true, "remote": true, "branch": true, "-T": true,
}

// remoteChangeWords, anywhere in a command that otherwise only looks,
// change the machine (sed -i, find -delete, journalctl --vacuum-size, ip
// link set).
var remoteChangeWords = map[string]bool{
	"-i": true, "--in-place": true, "-delete": true, "-exec": true, "-execdir": true, "-ok": true, "--vacuum-size": true, "--vacuum-time": true,
	"--rotate": true, "--flush": true, "set": true, "add": true, "del": true, "delete": true, "flush": true, "replace": true, "change": true,
	"system(": true,
}

// remoteTextReads reports whether remote shell text only reads: every
// simple command in it is one of remoteReadOnly, or a remoteReadTools
// one with a reading subcommand, and nothing is written by a redirection.
func remoteTextReads(text string) bool {
	for _, safe := range []string{"2>&1", ">&2", "1>&2", "2>/dev/null", ">/dev/null", "> /dev/null", "&>/dev/null"} {
		text = strings.ReplaceAll(text, safe, " ")
	}
	if strings.ContainsAny(text, "><`") || strings.Contains(text, "$(") {
		return false // a write, a substitution the analysis does not follow
	}
	for _, line := range strings.FieldsFunc(text, func(r rune) bool {
		return r == ';' || r == '&' || r == '|' || r == '\n' || r == '(' || r == ')' || r == '{' || r == '}'
	}) {
		f := strings.Fields(line)
		for len(f) > 0 && (strings.Contains(f[0], "=") || shellKeyword(f[0]) || f[0] == "sudo" || f[0] == "time" || f[0] == "nice" || f[0] == "command") {
			f = f[1:]
		}
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		name := commandName(strings.Trim(f[0], `"'`))
		for _, w := range f[1:] {
			if remoteChangeWords[strings.Trim(w, `"'`)] {
				return false
			}
		}
		if remoteReadOnly[name] {
			continue
		}
		if !remoteReadTools[name] {
			return false
		}
		sub := ""
		for _, w := range f[1:] {
			if w == "compose" || w == "container" || w == "image" || strings.HasPrefix(w, "-") && !remoteReadSubs[w] || strings.HasPrefix(w, "/") {
				continue // docker compose ps, git -C /srv/app log
			}
			sub = strings.Trim(w, `"'`)
			break
		}
		if name == "service" && !contains(f, "status") || name != "service" && !(readVerbs[sub] || remoteReadSubs[sub]) {
			return false
		}
	}
	return true
}

// shellKeyword: the shell's reserved words that start or join commands.
func shellKeyword(w string) bool {
	switch w {
	case "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "in", "case", "esac", "!", "[[", "]]":
		return true
	}
	return false
}

// shortTakesNext reports whether a word of short options (-p, -fNp, -i)
// ends with one that takes a value in the next word: the letters are read
// as getopt reads them, and a letter in valued takes the rest of the word
// (-p22, -oX=y) or, when it is last, the next word.
func shortTakesNext(w, valued string) bool {
	for i := 1; i < len(w); i++ {
		if strings.IndexByte(valued, w[i]) >= 0 {
			return i == len(w)-1
		}
	}
	return false
}

// dataEndpoints are the parts of a URL's path that change a search or
// document store's data or indices when written to (Elasticsearch's and
// OpenSearch's _reindex, _bulk, _delete_by_query; CouchDB's _bulk_docs;
// InfluxDB's write), and actionEndpoints those that deploy, rebuild or
// restart what they name (a deploy or build hook, a trigger).
var dataEndpoints = map[string]bool{
	"_reindex": true, "_delete_by_query": true, "_update_by_query": true, "_bulk": true, "_doc": true, "_create": true, "_update": true,
	"_bulk_docs": true, "_purge": true, "_replicate": true, "_close": true, "_open": true, "_rollover": true, "_shrink": true, "_split": true,
	"_clone": true, "_forcemerge": true, "_aliases": true, "_alias": true, "_mapping": true, "_settings": true, "_snapshot": true,
	"_restore": true, "_freeze": true, "_unfreeze": true, "_cache": true, "_compact": true, "_index_template": true, "_template": true,
	"_ilm": true, "_security": true, "_ingest": true, "write": true, "_update_by_query_rethrottle": true,
	// a plain store's write endpoints (Solr's /update, an API's /delete)
	"update": true, "delete": true, "insert": true, "import": true, "upsert": true, "truncate": true, "drop": true, "purge": true,
}

var actionEndpoints = map[string]bool{
	"deploy": true, "deploys": true, "deployments": true, "redeploy": true, "trigger": true, "triggers": true, "restart": true,
	"rollback": true, "purge_cache": true, "build_hooks": true, "deploy_hooks": true, "deploy-hooks": true, "build-hooks": true, "rebuild": true,
	"rerun": true, "pipeline": true, "pipelines": true, "builds": true, "dispatches": true, "run-now": true, "releases": true,
}

// notifyHost: push-notification services whose every posted request is a
// message to someone's phone or desktop (ntfy.sh/topic, Pushover,
// Gotify, Pushbullet, IFTTT's webhooks).
func notifyHost(host string) bool {
	switch host {
	case "ntfy.sh", "api.pushover.net", "api.pushbullet.com", "maker.ifttt.com", "notify.run", "api.simplepush.io", "api.day.app":
		return true
	}
	return strings.HasPrefix(host, "ntfy.") || strings.HasPrefix(host, "gotify.") || strings.HasPrefix(host, "apprise.")
}

// httpDataWrites returns actRemoteChange when an HTTP client, with or
// without a credential, writes (PUT, PATCH, or a POST or body to a
// dataEndpoint or actionEndpoint) to a host that is not this machine:
// an index reindexed or a deploy hook fired there changes what others
// see. A request to localhost or to a bare name (a compose service) is
// everyday work.
func httpDataWrites(inv *parse.Invocation, a *argv) act {
	if queryDML(inv) {
		return actRemoteChange // https://ch.example.com/?query=INSERT+INTO+t
	}
	put := false
	for _, w := range a.words {
		switch strings.ToUpper(w) {
		case "PUT", "PATCH", "-XPUT", "-XPATCH", "--REQUEST=PUT", "--REQUEST=PATCH", "--METHOD=PUT", "--METHOD=PATCH":
			put = true
		}
	}
	if !put && !httpPosts(a) {
		return 0
	}
	for i, w := range inv.Args {
		if strings.HasPrefix(w, "-") && !strings.Contains(w, "://") {
			continue
		}
		dyn := inv.DynamicArgs != nil && i < len(inv.DynamicArgs) && inv.DynamicArgs[i]
		w = strings.Trim(w, `"'`)
		host, path, ok := urlParts(w)
		if strings.HasPrefix(w, "$") {
			host, path, _ = strings.Cut(w, "/") // "$ES_URL/_reindex"
			ok = true
		}
		if !ok || !(strings.Contains(w, "://") || strings.Contains(host, ".") || strings.HasPrefix(host, "$")) {
			continue
		}
		if !(dyn || strings.ContainsAny(host, "$`") || strings.Contains(host, ".") && !localAddress(host) || productionHost(host)) {
			continue
		}
		if strings.ContainsAny(host, "$`") && (strings.Contains(host, "localhost") || strings.Contains(host, "127.0.0.1")) {
			continue
		}
		if put {
			return actRemoteChange
		}
		for _, s := range strings.Split(strings.ToLower(path), "/") {
			s, _, _ = strings.Cut(s, "?")
			if dataEndpoints[s] || actionEndpoints[s] {
				return actRemoteChange
			}
		}
	}
	return 0
}

// configOption: an option that names a configuration or defaults file
// (flyway -configFiles=conf/prod.conf, --config, kubectl --kubeconfig,
// liquibase --defaults-file): one named for production points the tool
// there (productionActs).
func configOption(opt string) bool {
	o := strings.ToLower(strings.TrimLeft(opt, "-"))
	return len(o) > 3 && (strings.Contains(o, "conf") || o == "defaults-file" || o == "defaultsfile")
}

// toolDataWords are verbs that change a warehouse's or a database's data
// for one tool, though the word does not say so (dbt run builds tables in
// the target it is given; sqlmesh run).
var toolDataWords = map[string]map[string]bool{
	"dbt":     {"run": true, "build": true, "seed": true, "snapshot": true, "run-operation": true, "retry": true, "clone": true},
	"sqlmesh": {"run": true, "apply": true, "restate": true},
	"meltano": {"run": true, "elt": true},
}

// transferChanges are the commands of sftp, lftp and ftp that put files
// on the server or remove or change them there.
var transferChanges = map[string]bool{
	"put": true, "mput": true, "reput": true, "rm": true, "mrm": true, "rmdir": true, "rename": true, "mv": true, "mkdir": true, "chmod": true,
	"chown": true, "chgrp": true, "ln": true, "symlink": true, "delete": true, "mdelete": true, "append": true, "site": true, "send": true,
}

// fileTransferActs returns actRemoteChange when sftp, lftp or ftp,
// talking to another host, is given commands that upload, delete or
// change files there: in a batch file (sftp -b f: unknown), on standard
// input (a here-document, a pipe), or in lftp -e/-c; ncftpput always
// uploads.
func fileTransferActs(inv *parse.Invocation, a *argv) act {
	valued := "BbcDFiJloPRSs"
	switch a.name {
	case "lftp":
		valued = "ecfpu"
	case "ftp", "tnftp":
		valued = "PoqrsTx"
	case "ncftpput":
		valued = "uUpPj"
	}
	host, script, batch := "", "", false
	for j := 0; j < len(inv.Args); j++ {
		w := inv.Args[j]
		if len(w) > 1 && w[0] == '-' {
			if w[1] != '-' && shortTakesNext(w, valued) && j+1 < len(inv.Args) {
				switch w[len(w)-1] {
				case 'b', 'f':
					batch = batch || inv.Args[j+1] != "-"
				case 'e', 'c':
					if a.name == "lftp" {
						script += "\n" + inv.Args[j+1]
					}
				}
				j++
			}
			continue
		}
		if host == "" {
			host = w
		}
	}
	if host == "" {
		return 0
	}
	h := host
	if _, rest, ok := strings.Cut(h, "://"); ok {
		h = rest
	}
	if at := strings.LastIndexByte(h, '@'); at >= 0 {
		h = h[at+1:]
	}
	h, _, _ = strings.Cut(h, ":")
	h, _, _ = strings.Cut(h, "/")
	if loopbackHost(h) {
		return 0
	}
	if a.name == "ncftpput" || batch {
		return actRemoteChange
	}
	for _, r := range inv.Redirects {
		if r.FD != "" && r.FD != "0" {
			continue
		}
		switch r.Op {
		case "<<", "<<-", "<<<":
			if r.Dynamic {
				return actRemoteChange
			}
			script += "\n" + r.Target
		case "<", "<>":
			return actRemoteChange // commands from a file
		}
	}
	if inv.PipedInto && script == "" {
		return actRemoteChange
	}
	for _, line := range strings.FieldsFunc(script, func(r rune) bool { return r == '\n' || r == ';' }) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		c := strings.ToLower(strings.TrimPrefix(f[0], "-"))
		if transferChanges[c] || c == "mirror" && (contains(f, "-R") || contains(f, "--reverse")) {
			return actRemoteChange
		}
	}
	return 0
}

// hostedShellActs: a cloud CLI's ssh given a command (gcloud compute ssh
// vm --command 'sudo systemctl restart api', az ssh vm ... -- cmd) runs
// it on that machine, judged as ssh's is.
func hostedShellActs(inv *parse.Invocation) act {
	ssh := false
	var cmd []string
	for j := 0; j < len(inv.Args); j++ {
		w := inv.Args[j]
		switch {
		case w == "ssh" || w == "ssh-vm":
			ssh = true
		case !ssh:
		case w == "--command" && j+1 < len(inv.Args):
			cmd = append(cmd, inv.Args[j+1])
			j++
		case strings.HasPrefix(w, "--command="):
			cmd = append(cmd, strings.TrimPrefix(w, "--command="))
		case w == "--":
			cmd = append(cmd, inv.Args[j+1:]...)
			j = len(inv.Args)
		}
	}
	if !ssh || len(cmd) == 0 || remoteTextReads(strings.Join(cmd, " ")) {
		return 0
	}
	return actRemoteChange
}

// redisStdinCommands: redis-cli given no command reads its commands from
// standard input when it is redirected, piped or told --pipe.
func redisStdinCommands(inv *parse.Invocation, a *argv) bool {
	if a.hasFlagWord("--pipe") || inv.PipedInto {
		return true
	}
	for _, r := range inv.Redirects {
		if (r.FD == "" || r.FD == "0") && (r.Op == "<" || r.Op == "<<" || r.Op == "<<-" || r.Op == "<<<") {
			return true
		}
	}
	return false
}

// queryDML reports whether an HTTP client's URL to another host carries
// SQL that changes data in its query (ClickHouse's and others' HTTP
// interfaces: ?query=INSERT INTO ...).
func queryDML(inv *parse.Invocation) bool {
	for _, w := range inv.Args {
		i := strings.Index(w, "query=")
		if i < 0 || !strings.Contains(w, "://") {
			continue
		}
		host, _, _ := urlParts(strings.Trim(w, `"'`))
		if !strings.Contains(host, ".") || localAddress(host) {
			continue
		}
		q := strings.NewReplacer("%20", " ", "+", " ", "%2C", ",", "%28", "(", "%29", ")").Replace(w[i+6:])
		if warehouseDML().MatchString(q) {
			return true
		}
	}
	return false
}

// azRestActs: az rest is Azure's raw HTTP client; a method other than
// GET (post, put, patch, delete) changes what the URL names, in the
// user's name.
func azRestActs(inv *parse.Invocation) act {
	for j, w := range inv.Args {
		m := ""
		switch {
		case (w == "--method" || w == "-m") && j+1 < len(inv.Args):
			m = inv.Args[j+1]
		case strings.HasPrefix(w, "--method="):
			m = strings.TrimPrefix(w, "--method=")
		}
		switch strings.ToLower(m) {
		case "post", "put", "patch", "delete":
			return actRemoteChange
		}
	}
	return 0
}
