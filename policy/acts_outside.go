package policy

import (
	"strings"

	"github.com/stockade/stockade/parse"
)

// Acts on people and accounts outside: sending a message in the user's
// name, scaling a service, spending money. Like the other acts (acts.go)
// they are read from the verbs and nouns a command is given, the same in
// every ecosystem: stripe invoices send, swaks --to, gh issue create,
// aws autoscaling set-desired-capacity, runpodctl create pod.

// sendVerbs send a message, a mail or a post wherever they stand among the
// leading words (stripe invoices send, aws ses send-email, croc send x).
var sendVerbs = map[string]bool{
	"send": true, "send-email": true, "send-raw-email": true, "send-message": true, "send-mail": true, "sendmail": true, "send-sms": true,
	"send-command": true, "toot": true, "tweet": true, "skeet": true,
}

// mailSenders send mail whenever they run (swaks --to x, sendmail -t);
// mailReaders send when given an address or a subject (mail -s s x@y) and
// otherwise open a mailbox.
var mailSenders = map[string]bool{"sendmail": true, "msmtp": true, "ssmtp": true, "swaks": true, "sendemail": true, "mpack": true, "mailsend": true, "mailsend-go": true, "blat": true}
var mailReaders = map[string]bool{"mail": true, "mailx": true, "s-nail": true, "nail": true, "bsd-mailx": true, "mutt": true, "neomutt": true, "heirloom-mailx": true}

// messageNouns are what people read: creating, editing or moving one sends
// it to them (gh issue create, jira issue move, glab issue note, linear
// issue new). A pull request is not among them: opening one is how a
// pushed branch is offered, which is everyday work.
var messageNouns = map[string]bool{
	"issue": true, "issues": true, "discussion": true, "discussions": true, "comment": true, "comments": true, "message": true, "messages": true,
	"ticket": true, "tickets": true, "post": true, "posts": true, "status": true, "statuses": true, "email": true, "emails": true, "mail": true,
	"sms": true, "notification": true, "notifications": true, "announcement": true, "announcements": true, "chat": true,
}

var messageVerbs = map[string]bool{
	"create": true, "new": true, "add": true, "open": true, "post": true, "reply": true, "edit": true, "move": true, "assign": true,
	"transition": true, "comment": true, "close": true, "reopen": true, "note": true, "publish": true, "write": true,
}

// localUITools are terminals, multiplexers and window managers: their
// send, resize and scale act on this machine's screen (tmux send-keys,
// kitty @ resize-window), and image and disk tools whose resize is a file's
// (vips resize, qemu-img resize).
var localUITools = map[string]bool{
	"tmux": true, "screen": true, "zellij": true, "kitty": true, "wezterm": true, "yabai": true, "i3-msg": true, "swaymsg": true, "xdotool": true,
	"wmctrl": true, "vips": true, "qemu-img": true, "convert": true, "magick": true, "gm": true, "mogrify": true, "cryptsetup": true, "btrfs": true,
	"zfs": true, "parted": true, "lvresize": true, "resize2fs": true, "virsh": true, "jekyll": true, "xrandr": true,
}

// httpClients send a request to the URL among their operands.
// twurl (Round 17) is curl for the X/Twitter API: its paths
// (/2/tweets, /1.1/statuses/update.json) are that API's.
var httpClients = map[string]bool{"curl": true, "wget": true, "http": true, "https": true, "xh": true, "xhs": true, "curlie": true, "httpie": true, "wget2": true, "twurl": true}

// sendEndpoints: the last parts of a URL's path that send whatever is
// posted to them, whatever the host (Slack's chat.postMessage, Telegram's
// sendMessage, SendGrid's mail/send, a webhook).
var sendEndpoints = map[string]bool{
	"send": true, "sendmessage": true, "sendmail": true, "send-email": true, "sendemail": true, "postmessage": true, "chat.postmessage": true,
	"sendphoto": true, "senddocument": true, "send_message": true, "incoming-webhook": true,
}

// postEndpoints send what is posted to them (a message, a status, a
// comment); read with a plain GET they only list.
var postEndpoints = map[string]bool{
	"messages": true, "messages.json": true, "statuses": true, "tweets": true, "comments": true, "notifications": true, "emails": true,
	"email": true, "sms": true, "notify": true, "issues": true, "posts": true, "chat": true,
	// pages people: PagerDuty's events (v2/enqueue), incident and alert APIs
	"enqueue": true, "incidents": true, "alerts": true,
}

// scaleVerbs change how many machines or replicas run, or how big they are
// (kubectl scale, gcloud ... managed resize, heroku ps:scale, aws
// autoscaling set-desired-capacity).
var scaleVerbs = map[string]bool{"scale": true, "resize": true, "autoscale": true, "scaling": true, "capacity": true}

// spendVerbs with a spendNoun among the same words create something billed
// by the hour or the call, or move money (stripe charges create, runpodctl
// create pod, hf endpoints create, aws ec2 run-instances, aws
// route53domains register-domain, openai api fine_tuning.jobs.create).
var spendVerbs = map[string]bool{
	"create": true, "new": true, "register": true, "purchase": true, "buy": true, "launch": true, "provision": true, "rent": true, "order": true,
	"renew": true, "pay": true, "capture": true, "charge": true, "reserve": true, "subscribe": true,
}

var spendNouns = map[string]bool{
	"charge": true, "charges": true, "payment": true, "payments": true, "payment_intents": true, "paymentintents": true, "payment-intents": true,
	"payout": true, "payouts": true, "refund": true, "refunds": true, "subscription": true, "subscriptions": true, "transfer": true, "transfers": true,
	"topup": true, "topups": true, "pod": true, "pods": true, "endpoint": true, "endpoints": true, "instance": true, "instances": true,
	"droplet": true, "droplets": true, "server": true, "servers": true, "vm": true, "vms": true, "machine": true, "machines": true,
	"node": true, "nodes": true, "nodepool": true, "nodepools": true, "node-pool": true, "node-pools": true, "gpu": true, "gpus": true,
	"cluster": true, "clusters": true, "fine_tuning": true, "fine-tuning": true, "fine_tunes": true, "fine-tunes": true, "finetune": true,
	"finetunes": true, "training": true, "batches": true, "domain": true, "domains": true, "registrations": true, "reservation": true,
	"reservations": true, "nodegroup": true, "nodegroups": true, "codespace": true, "codespaces": true, "linode": true, "linodes": true, "db-instance": true, "notebook-instance": true,
	// accelerators and hosted model runs billed by the second
	"tpus": true, "tpu": true, "tpu-vm": true, "queued-resources": true, "predictions": true, "trainings": true,
	// a hosted model or app's deployment runs replicas billed by the hour
	// (replicate deployments create)
	"deployment": true, "deployments": true,
}

// moneyVerbs move money wherever they stand among the leading words, with
// no noun needed (x payments refund ch_1, x transfer --to acct_2, payout).
var moneyVerbs = map[string]bool{
	"refund": true, "transfer": true, "payout": true, "withdraw": true, "send-money": true, "send-payment": true, "pay": true,
}

// localMachineTools create machines, clusters and pods on this machine
// (kind create cluster, podman pod create, multipass launch): nothing is
// billed.
var localMachineTools = map[string]bool{
	"kind": true, "k3d": true, "minikube": true, "microk8s": true, "ctlptl": true, "docker": true, "podman": true, "nerdctl": true, "lima": true,
	"limactl": true, "colima": true, "multipass": true, "vagrant": true, "virt-install": true, "VBoxManage": true, "vboxmanage": true, "lxc": true,
	"incus": true, "distrobox": true, "toolbox": true, "k3s": true, "kubeadm": true, "orb": true, "orbctl": true, "rails": true, "hugo": true,
}

// accountNouns are what an account lets in: its firewall, its enabled
// services, its members; changing one changes who or what reaches the
// account (gcloud services enable x, gcloud compute firewall-rules create,
// aws ec2 authorize-security-group-ingress).
var accountNouns = map[string]bool{
	"firewall": true, "firewalls": true, "firewall-rules": true, "firewall-rule": true, "firewall-policies": true, "security-group": true,
	"security-groups": true, "nsg": true, "services": true, "apis": true, "member": true, "members": true, "membership": true, "memberships": true,
	"collaborator": true, "collaborators": true, "invitation": true, "invitations": true, "ruleset": true, "rulesets": true, "branch-protection": true,
	"variable": true, "variables": true,
	// Round 14: who pays (gcloud billing projects link, az billing ...)
	"billing": true, "billing-account": true, "billing-accounts": true,
}

var accountVerbs = map[string]bool{
	"create": true, "update": true, "add": true, "remove": true, "enable": true, "disable": true, "set": true, "patch": true, "invite": true,
	"add-rules": true, "remove-rules": true, "add-rule": true, "authorize": true, "revoke": true, "grant": true,
	"link": true, "unlink": true,
}

// hostedModelRunners run a hosted model once per call, billed by the
// second or the prediction (replicate run owner/model prompt=x): the
// words that run one, by tool. Round 14.
var hostedModelRunners = map[string]map[string]bool{
	"replicate": {"run": true, "stream": true, "train": true, "predict": true},
}

// httpSpends returns actSpend when an HTTP client posts to an endpoint
// that buys or orders (/v1/domains/purchase, /orders/create,
// /domains/register), or calls an RPC-style API whose query names a call
// that does, whatever the method (namecheap's
// ?Command=namecheap.domains.create, AWS's ?Action=RunInstances), on a
// host that is not this machine. Round 14; the query, round 16.
func httpSpends(inv *parse.Invocation, a *argv) act {
	posts := httpPosts(a)
	for i, w := range inv.Args {
		if strings.HasPrefix(w, "-") && !strings.Contains(w, "://") || !posts && !strings.Contains(w, "?") {
			continue
		}
		if inv.DynamicArgs != nil && inv.DynamicArgs[i] {
			w = strings.Trim(w, `"'`)
		}
		host, path, ok := urlParts(w)
		if !ok || loopbackHost(host) || path == "" {
			continue
		}
		path, query, _ := strings.Cut(path, "?")
		if queryCallSpends(query) {
			return actSpend
		}
		if !posts {
			continue
		}
		segs := strings.Split(strings.ToLower(path), "/")
		for k, seg := range segs {
			if spends(segs, k, verbParts(seg)) && !(spendNouns[seg] && k+1 < len(segs) && segs[k+1] == "new") {
				return actSpend
			}
		}
	}
	return 0
}

// queryCallSpends reports whether a URL's query names, in a parameter
// RPC-style APIs take the call's name in (Command, Action, method, op), a
// call that buys or orders: its dotted, dashed or camelCase parts pair a
// spendVerb with a spendNoun (namecheap.domains.create, RunInstances).
func queryCallSpends(query string) bool {
	for param := range strings.SplitSeq(query, "&") {
		k, v, _ := strings.Cut(param, "=")
		switch strings.ToLower(k) {
		case "command", "cmd", "action", "method", "op", "operation", "call":
		default:
			continue
		}
		var parts []string
		start := 0
		for j := 0; j <= len(v); j++ {
			sep := j == len(v) || strings.IndexByte(".-_:/+", v[j]) >= 0
			if sep || j > start && v[j] >= 'A' && v[j] <= 'Z' && v[j-1] >= 'a' && v[j-1] <= 'z' {
				if j > start {
					parts = append(parts, strings.ToLower(v[start:j]))
				}
				start = j
				if sep {
					start = j + 1
				}
			}
		}
		for k := range parts {
			if spends(parts, k, parts) {
				return true
			}
		}
	}
	return false
}

// outsideActsOf returns the send, scale, spend and account acts of an
// invocation whose leading words are words (actsFromWords).
func outsideActsOf(inv *parse.Invocation, a *argv, words [4]string) act {
	var acts act
	name := a.name
	if localUITools[name] {
		return 0
	}
	if mailSenders[name] || mailReaders[name] && (a.hasShort('s') || hasAddress(a.positionals)) {
		acts |= actSend
	}
	if httpClients[name] {
		return acts | httpSends(inv, a) | httpAPIWrites(inv, a) | httpDataWrites(inv, a) | httpSpends(inv, a)
	}
	if runs := hostedModelRunners[name]; runs != nil && len(a.positionals) > 1 && runs[words[0]] {
		return acts | actSpend // replicate run owner/model, each run billed
	}
	n := 0
	for n < len(words) && words[n] != "" {
		n++
	}
	for k := 0; k < n; k++ {
		w := words[k]
		if k > 0 && readVerbs[words[k-1]] {
			break
		}
		if k+1 < n && readVerbs[words[k+1]] {
			continue // wp post list, stripe charges list
		}
		if k == 0 && taskRunners[w] {
			continue // npm run send-report is judged by its name below
		}
		one := [1]string{w}
		parts := one[:]
		if strings.ContainsAny(w, "-.:") {
			parts = verbParts(w)
		}
		switch {
		case sendVerbs[w], w == "post" && k == 0 && n > 1:
			acts |= actSend // toot post "x", stripe invoices send in_1
		case k+1 < n && messageNouns[w] && messageVerbs[words[k+1]], pairInParts(parts, messageNouns, messageVerbs):
			acts |= actSend // gh issue create, jira issue move, api:core:messages:create
		}
		if scaleVerbs[w] && len(a.words) > k+1 || anyPart(parts[1:], scaleVerbs) && !readPrefix(parts[0]) {
			acts |= actScale // fly scale count 3, set-desired-capacity, ps:scale
		}
		if spends(words[:n], k, parts) && !localMachineTools[name] || moneyVerbs[w] || len(parts) > 1 && !readPrefix(parts[0]) && anyPart(parts, moneyVerbs) {
			acts |= actSpend
		}
		if accountNouns[w] && (accountVerb(words[:n], k+1) || k+2 < n && accountVerb(words[:n], k+2)) ||
			len(parts) > 1 && (parts[0] == "authorize" || parts[0] == "revoke") && anyPart(parts[1:], map[string]bool{"ingress": true, "egress": true, "security": true}) ||
			changesSignIn(words[:n], k, parts) {
			acts |= actAccount
		}
		if k+1 < n && len(parts) > 1 && keyStores[parts[len(parts)-1]] && storeWords[words[k+1]] || pairInParts(parts, secretVerbs, secretNouns) {
			acts |= actStoreCredentials // gh repo deploy-key add, aws secretsmanager put-secret-value
		}
		if len(parts) > 1 && !readPrefix(parts[0]) && anyPart(parts, map[string]bool{"deletion": true, "delete": true, "destroy": true, "terminate": true}) {
			acts |= actDestroy // schedule-key-deletion, files.delete
		}
	}
	return acts
}

// secretVerbs, before a keyStores noun in a dashed verb, put a secret
// into a store (put-secret-value, create-secret, update-secret).
var secretNouns = map[string]bool{"secret": true, "secrets": true, "token": true, "tokens": true, "parameter": true}
var secretVerbs = map[string]bool{"put": true, "create": true, "update": true, "set": true, "add": true, "import": true, "rotate": true, "restore": true, "store": true}

// signInNouns are how an account proves who signs in (a second factor,
// a password); signInVerbs, with one, change it (npm profile
// disable-2fa, aws iam deactivate-mfa-device, npm profile set password):
// who can act as the user from then on changes. Round 16.
var signInNouns = map[string]bool{"2fa": true, "mfa": true, "tfa": true, "otp": true, "totp": true, "u2f": true, "webauthn": true, "passkey": true, "password": true}
var signInVerbs = map[string]bool{"disable": true, "enable": true, "deactivate": true, "remove": true, "reset": true, "set": true, "change": true, "turn": true, "off": true, "resync": true}

// changesSignIn reports whether the k-th of words, with its parts, pairs
// a signInVerb with a signInNoun, in one dashed word (disable-2fa,
// deactivate-mfa-device) or as a verb and its noun (set password).
func changesSignIn(words []string, k int, parts []string) bool {
	if len(parts) > 1 && signInVerbs[parts[0]] && anyPart(parts[1:], signInNouns) {
		return true
	}
	return signInVerbs[words[k]] && k+1 < len(words) && signInNouns[words[k+1]]
}

// accountVerb reports whether the k-th of words changes an account's
// settings (create, enable, add-rules).
func accountVerb(words []string, k int) bool {
	return k < len(words) && (accountVerbs[words[k]] || strings.HasPrefix(words[k], "add-") || strings.HasPrefix(words[k], "update-"))
}

// spends reports whether the k-th of words, with its parts, pairs a
// spendVerb with a spendNoun: in one word (run-instances, register-domain,
// fine_tuning.jobs.create) or as a noun and its verb (stripe charges
// create, runpodctl create pod).
func spends(words []string, k int, parts []string) bool {
	if len(parts) > 1 && (anyPart(parts, spendVerbs) || parts[0] == "run") && anyPart(parts, spendNouns) {
		return true
	}
	w := words[k]
	if !spendNouns[w] {
		return false
	}
	// charges create, machine run; create pod (not new server: cargo new
	// server names a project, nor run pods: npm run pods is a script)
	return k+1 < len(words) && (spendVerbs[words[k+1]] || words[k+1] == "run") || k > 0 && spendVerbs[words[k-1]] && words[k-1] != "new"
}

// verbParts splits a dashed, dotted or coloned verb into its lower-case
// parts (set-desired-capacity, fine_tuning.jobs.create, ps:scale); a word
// without separators is one part. camelCase words are left whole.
func verbParts(w string) []string {
	if !strings.ContainsAny(w, "-.:") || strings.Contains(w, "/") {
		return []string{w}
	}
	if parts := strings.FieldsFunc(strings.ToLower(w), func(r rune) bool { return r == '-' || r == '.' || r == ':' }); len(parts) > 0 {
		return parts
	}
	return []string{w}
}

// pairInParts reports whether one of a word's parts is a noun and the
// next is its verb (messages:create).
func pairInParts(parts []string, nouns, verbs map[string]bool) bool {
	for i := 0; i+1 < len(parts); i++ {
		if nouns[parts[i]] && verbs[parts[i+1]] {
			return true
		}
	}
	return false
}

func anyPart(parts []string, set map[string]bool) bool {
	for _, p := range parts {
		if set[p] {
			return true
		}
	}
	return false
}

// readPrefix reports whether a dashed verb's first part only looks
// (describe-scaling-activities, get-capacity).
func readPrefix(p string) bool {
	switch p {
	case "describe", "get", "list", "show", "view", "read", "search", "cancel", "test", "validate", "estimate", "preview":
		return true
	}
	return false
}

// hasAddress reports whether one of the words is a mail address.
func hasAddress(words []string) bool {
	for _, w := range words {
		if i := strings.IndexByte(w, '@'); i > 0 && i < len(w)-1 && !strings.ContainsAny(w, "/:") {
			return true
		}
	}
	return false
}

// httpSends returns actSend when an HTTP client's request goes to an
// endpoint that sends what it is given (chat.postMessage, mail/send, a
// webhook), or posts to one that lists on a GET (messages, statuses);
// never for a request to this machine.
func httpSends(inv *parse.Invocation, a *argv) act {
	posts := httpPosts(a)
	for i, w := range inv.Args {
		if strings.HasPrefix(w, "-") && !strings.Contains(w, "://") {
			continue
		}
		if inv.DynamicArgs != nil && inv.DynamicArgs[i] {
			// "$SLACK_WEBHOOK_URL": the variable's name says what it is
			if u := strings.ToUpper(w); strings.Contains(u, "WEBHOOK") || strings.Contains(u, "HOOK_URL") || posts && strings.Contains(u, "HOOK") {
				return actSend
			}
			// "https://api.telegram.org/bot$T/sendMessage": the host and
			// the endpoint are written out
			w = strings.Trim(w, `"'`)
		}
		host, path, ok := urlParts(w)
		if a.name == "twurl" && strings.HasPrefix(w, "/") {
			host, path, ok = "api.twitter.com", w, true
		}
		if !ok || loopbackHost(host) || strings.ContainsAny(host, "$`") {
			continue
		}
		if strings.HasPrefix(host, "hooks.") || strings.HasSuffix(host, "webhook.office.com") || posts && notifyHost(host) {
			return actSend
		}
		segs := strings.Split(strings.ToLower(path), "/")
		for j, s := range segs {
			if s, _, _ = strings.Cut(s, "?"); sendEndpoints[s] || s == "webhooks" && j+1 < len(segs) ||
				posts && (postEndpoints[s] || s == "hooks" && j+1 < len(segs) && segs[j+1] != "") {
				return actSend
			}
		}
	}
	return 0
}

// httpPosts reports whether an HTTP client sends data or uses a method
// that writes (curl -d, -F, -X POST; wget --post-data; http POST url a=b).
func httpPosts(a *argv) bool {
	for _, w := range a.words {
		switch strings.ToUpper(w) {
		case "POST", "PUT", "PATCH", "-XPOST", "-XPUT", "-XPATCH", "--REQUEST=POST", "--METHOD=POST":
			return true
		}
	}
	if a.name == "curl" || a.name == "curlie" || a.name == "twurl" {
		return a.hasShort('d') || a.hasShort('F') || a.hasShort('T') || containsLong(a.longs, "data") || containsLong(a.longs, "data-raw") ||
			containsLong(a.longs, "data-binary") || containsLong(a.longs, "data-urlencode") || containsLong(a.longs, "json") ||
			containsLong(a.longs, "form") || containsLong(a.longs, "upload-file")
	}
	if a.name == "wget" || a.name == "wget2" {
		return containsLong(a.longs, "post-data") || containsLong(a.longs, "post-file") || containsLong(a.longs, "body-data")
	}
	for _, p := range a.positionals[min(1, len(a.positionals)):] {
		if strings.Contains(p, "=") || strings.HasPrefix(p, "@") {
			return true // httpie's data items: name=value, field:=json, @file
		}
	}
	return false
}

// urlParts returns the host and the path of a URL, with or without its
// scheme (api.example.com/v3/mail/send).
func urlParts(w string) (host, path string, ok bool) {
	if _, rest, found := strings.Cut(w, "://"); found {
		w = rest
	} else if !strings.Contains(w, ".") || strings.HasPrefix(w, ".") || strings.HasPrefix(w, "/") || strings.HasPrefix(w, "@") {
		return "", "", false
	}
	host, path, _ = strings.Cut(w, "/")
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	if strings.HasPrefix(host, "[") {
		if end := strings.IndexByte(host, ']'); end > 0 {
			host = host[:end+1] // [::1]:8080
		}
	} else if h, _, found := strings.Cut(host, ":"); found {
		host = h
	}
	return strings.ToLower(host), path, host != ""
}
