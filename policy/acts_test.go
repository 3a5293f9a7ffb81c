package policy

import (
	"os"
	"strings"
	"testing"

	"github.com/stockade/stockade/parse"
)

// actTests: spellings of each act across ecosystems, and near misses that
// must keep no act (everyday uses of the same tools and words).
var actTests = []struct {
	script string
	want   string // the act's name, or "" for none
}{
	// publish: the verb, wherever a tool puts it
	{"nimble publish", "publish"},
	{"helm cm-push chart.tgz repo", ""},
	{"rebar3 hex cut --increment patch", ""},
	{"dart pub get", ""},
	{"dart pub lish", ""},
	{"flutter pub publish --dry-run", ""},
	{"mix hex.owner transfer lib someone", "publish"},
	{"mix hex.outdated", ""},
	{"pnpm run publish:canary", "publish"},
	{"yarn run build:prod", ""},
	{"bazel run //tools:release_binary", "publish"},
	{"bazel run //cmd/server", ""},
	{"bazel build //deploy:all", ""},
	{"pants publish src/python::", "publish"},
	{"sbt ++2.13 publishLocal", ""},
	{"./gradlew :core:publishAllPublicationsToSonatypeRepository", "publish"},
	{"bundle exec cap production deploy", "publish"},
	{"bundle exec rspec", ""},
	{"npm owner ls left-pad", ""},
	{"gem owner my-gem --add a@example.com", "publish"},
	{"cargo release minor --execute", "publish"},
	{"gh release view v1", ""},
	{"make release", ""},
	{"make -n publish", ""},
	{"cmake --build build --config release", ""},
	{"swift build -c release", ""},
	{"kubectl get deploy -n web", ""},
	{"kubectl rollout status deploy/web", ""},
	{"docker compose push", "publish"},
	{"docker run --name publish alpine true", ""},
	{"hg push", ""},
	{"quilt push -a", ""},
	{"echo publish", ""},
	{"grep -rn deploy .", ""},
	{"python3 scripts/publish.py --tag v2", "publish"},
	{"bash -n publish.sh", ""},
	{"python3 scripts/release_notes.py", ""},
	{"npx semantic-release --no-ci", "publish"},
	{"lsb_release -a", ""},
	{"ko resolve -f config/", "publish"},
	{"ko build -L ./cmd/x", ""},
	{"code deploy.yml", ""},
	{"uv run --with build python -m build", ""},
	{"skaffold run -p prod", "publish"},
	{"skaffold dev", ""},
	// flash: a device attached to the machine
	{"openocd -f board/x.cfg -c 'program fw.elf verify reset exit'", "flash"},
	{"openocd -f board/x.cfg", ""},
	{"pyocd flash -t nrf52840 build/zephyr.hex", "flash"},
	{"pyocd list", ""},
	{"dfu-util -l", ""},
	{"dfu-util -a 1 --download fw.dfu", "flash"},
	{"avrdude -p t85 -c usbasp -U lfuse:w:0xe2:m", "flash"},
	{"avrdude -p t85 -c usbasp -v", ""},
	{"fastboot devices", ""},
	{"fastboot erase userdata", "flash"},
	{"particle flash photon firmware.bin", "flash"},
	{"esptool --port /dev/ttyUSB3 chip_id", ""},
	// install-global: for the whole user
	{"ghcup install cabal", "install-global"},
	{"ghcup list", ""},
	{"rbenv install 3.3.1", "install-global"},
	{"rbenv local 3.3.1", ""},
	{"asdf install", ""},
	{"asdf global ruby 3.3.1", "install-global"},
	{"juliaup status", ""},
	{"flatpak install --user flathub org.x.Y", "install-global"},
	{"flatpak list", ""},
	{"snap refresh", ""},
	{"mise use -g go@1.23", "install-global"},
	{"mise use go@1.23", ""},
	{"yarn global add serve", "install-global"},
	{"composer require --dev phpunit/phpunit", ""},
	{"gcc -g -O0 main.c", ""},
	{"git config --global user.name me", ""},
	// destroy: machines, remote stores
	{"multipass delete --purge vm", "destroy"},
	{"lxc stop box", ""},
	{"virsh undefine guest --nvram", "destroy"},
	{"VBoxManage list vms", ""},
	{"etcdctl get --prefix /app", ""},
	{"etcdctl del /app/flag", "destroy"},
	{"influx bucket list", ""},
	{"hcloud volume delete data", "destroy"},
	{"pip cache purge", ""},
	{"s3cmd rb s3://old-bucket", "destroy"},
	{"npm uninstall left-pad", ""},
	{"sqlx database drop -y", ""},
	// send, scale, spend, account: acts on people and accounts
	{"stripe invoices send in_1", "send"},
	{"gh issue create -t x", "send"},
	{"gh pr create --fill --draft", ""},
	{"swaks --to a@example.com", "send"},
	{"fly scale count 3", "scale"},
	{"tmux resize-pane -D 5", ""},
	{"runpodctl create pod --gpuCount 4", "spend"},
	{"kind create cluster", ""},
	{"gcloud services enable run.googleapis.com", "account"},
	{"gcloud services list", ""},
}

func TestActs(t *testing.T) {
	for _, tc := range actTests {
		s, err := parse.Parse(tc.script)
		if err != nil {
			t.Fatalf("%q: %v", tc.script, err)
		}
		var got act
		for i := range s.Invocations {
			var a argv
			a.init(&s.Invocations[i])
			got |= actsOf(&s.Invocations[i], &a)
		}
		var want act
		for _, n := range actNames {
			if n.name == tc.want {
				want = n.a
			}
		}
		if got&want != want || want == 0 && got != 0 || tc.want != "" && want == 0 {
			t.Errorf("%q: acts %b, want %q", tc.script, got, tc.want)
		}
	}
}

// TestActsDecide: the built-in policy asks about each act, with a tool no
// rule names, and leaves the near misses allowed.
func TestActsDecide(t *testing.T) {
	p := Default()
	for _, tc := range actTests {
		d := p.Check(tc.script)
		switch {
		case tc.want != "" && d.Verdict == Allow:
			t.Errorf("%q: allowed, want ask or deny (%s)", tc.script, tc.want)
		case tc.want == "" && d.Verdict != Allow && (d.Rule == "publishes" || d.Rule == "flashes-device" || d.Rule == "installs-globally" || d.Rule == "destroys-outside" ||
			d.Rule == "sends-messages" || d.Rule == "scales-services" || d.Rule == "spends-money" || d.Rule == "changes-account-access"):
			t.Errorf("%q: %s by %s, want no act", tc.script, d.Verdict, d.Rule)
		}
	}
}

// TestReadmeNamesEveryAct: the README's acts key lists every act a rule
// may name.
func TestReadmeNamesEveryAct(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, row, _ := strings.Cut(string(data), "| `acts` |")
	row, _, _ = strings.Cut(row, "\n")
	for _, n := range actNames {
		if !strings.Contains(row, "`"+n.name+"`") {
			t.Errorf("README.md's acts row does not name the act %q", n.name)
		}
	}
}
