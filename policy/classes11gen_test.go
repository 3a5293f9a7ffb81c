package policy

import "testing"

// classTests11gen: round 11's generalisation classes, as in classTests: new
// spellings of each effect, judged by what they do rather than which
// service or tool they name, with the everyday lookalikes next to them.
var classTests11gen = []classTest{
	// A request that writes, with a credential, to a host elsewhere: any
	// client, any service, the credential in any place.
	{"api-write", `curl https://api.payments.example/v1/refunds -u "$PAY_SECRET_KEY:" -d charge=ch_9`, Ask},
	{"api-write", `curl -sS -X PUT -H "X-Api-Key: $FLAGS_KEY" https://flags.example.net/api/flags/beta -d '{"on":true}'`, Ask},
	{"api-write", `curl -XPATCH 'https://status.example.io/api/v1/components/7?api_key=abc' -d status=major_outage`, Ask},
	{"api-write", `curl --oauth2-bearer "$T" --json '{"title":"x"}' https://tracker.example.com/api/issues-new`, Ask},
	{"api-write", `curl --user admin:hunter2 --data-binary @rules.json https://grafana.example.org/api/alerts-import`, Ask},
	{"api-write", `xh --auth-type bearer -a "$K" post https://api.example.dev/v2/runs model=x`, Ask},
	{"api-write", `http --auth u:p PUT api.example.com/v1/config retries:=3`, Ask},
	{"api-write", `wget -qO- --header="Authorization: Bearer $OPS_PAT" --post-data='{"replicas":0}' https://ops.example.com/api/scale-down`, Ask},
	{"api-write", `curl -X POST "$DEPLOY_API/v1/services/web/restart" -H "Authorization: Bearer $DEPLOY_PAT"`, Ask},
	{"api-write", `curl -fsSL -H "Authorization: Bearer $TOKEN" https://api.example.com/v1/projects | jq .`, Deny},
	{"api-write", `curl -s -H 'Authorization: Bearer dev' https://api.example.com/v1/projects`, Allow},
	{"api-write", `curl -X POST http://localhost:3000/api/login -H 'Authorization: Basic dGVzdDp0ZXN0' -d '{}'`, Allow},
	{"api-write", `curl -s -X POST -u test:test http://127.0.0.1:8080/api/reset`, Allow},
	{"api-write", `http POST :8000/api/items name=widget Authorization:'Bearer dev'`, Allow},
	{"api-write", `curl -X POST https://httpbin.org/post -d hello=world`, Allow},
	{"api-write", `curl -sI https://example.com`, Allow},
}

func TestClasses11Gen(t *testing.T) { checkClasses(t, classTests11gen) }
