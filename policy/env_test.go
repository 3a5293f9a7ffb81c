package policy

import (
	"slices"
	"strings"
	"testing"
)

// passwordNames are spellings of passwords seen in real deployments: database
// clients, container images, CI systems, build tools. Each must be scrubbed.
var passwordNames = []string{
	// short spellings
	"MYSQL_PWD", "DB_PWD", "DBPWD_X_PWD", "ADMIN_PWD", "ROOT_PWD", "SQL_PWD", "LDAP_PWD", "ORACLE_PWD",
	"DB_PW", "ADMIN_PW", "SMTP_PW", "LDAP_BIND_PW", "ROOT_PW", "FTP_PW",
	// *PASS
	"SSHPASS", "DB_PASS", "DBPASS", "MYSQLPASS", "RABBITMQ_DEFAULT_PASS", "REDIS_PASS", "SMTP_PASS",
	"KEYSTORE_PASS", "STOREPASS", "KEYPASS", "FTP_PASS", "MAIL_PASS", "PROXY_PASS", "NEXUS_PASS",
	"ARTIFACTORY_PASS", "SONAR_PASS", "PASS", "pass", "ssh_pass", "Db_Pass", "KEY_PASS",
	// *PASSWD
	"PASSWD", "DB_PASSWD", "MYSQL_PASSWD", "ROOTPASSWD", "LDAP_PASSWD", "SMTP_PASSWD",
	// *PASSWORD*
	"PASSWORD", "PGPASSWORD", "MYSQL_PASSWORD", "MYSQL_ROOT_PASSWORD", "POSTGRES_PASSWORD",
	"MONGO_INITDB_ROOT_PASSWORD", "MARIADB_ROOT_PASSWORD", "REDIS_PASSWORD", "ELASTIC_PASSWORD",
	"RABBITMQ_DEFAULT_PASSWORD", "DOCKER_PASSWORD", "REGISTRY_PASSWORD", "NPM_PASSWORD",
	"TWINE_PASSWORD", "MAVEN_PASSWORD", "GRADLE_PASSWORD", "SONATYPE_PASSWORD", "KEYSTORE_PASSWORD",
	"SPRING_DATASOURCE_PASSWORD", "DB_PASSWORD", "DBPASSWORD", "SMTP_PASSWORD", "EMAIL_PASSWORD",
	"ADMIN_PASSWORD", "ANSIBLE_BECOME_PASSWORD", "VAULT_PASSWORD", "PASSWORD_DB", "PASSWORDS",
	"MSSQL_SA_PASSWORD", "SA_PASSWORD", "ORACLE_PASSWORD", "LDAP_ADMIN_PASSWORD", "JENKINS_PASSWORD",
	"GRAFANA_ADMIN_PASSWORD", "GF_SECURITY_ADMIN_PASSWORD", "KEYCLOAK_ADMIN_PASSWORD", "MINIO_ROOT_PASSWORD",
	"db.password", "db-password", "mysql_password",
	// other spellings
	"SSH_PASSPHRASE", "GPG_PASSPHRASE", "KEY_PASSPHRASE", "PASSPHRASE", "DB_PASSCODE", "DB_PSWD",
	"USER_PWORD", "DB_PASSWRD",
}

// ordinaryNames must reach the command: the shell's and the tools' own
// variables, and names that only look like passwords.
var ordinaryNames = []string{
	"PATH", "HOME", "PWD", "OLDPWD", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LANGUAGE",
	"LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "EDITOR", "PAGER", "COLORTERM", "SHLVL", "HOSTNAME",
	"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GOOS", "GOARCH", "CGO_ENABLED",
	"XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_DIRS", "XDG_SESSION_TYPE",
	"PASSENGER_APP_ENV", "PASSENGER_ROOT", "PASSENGER_INSTANCE_REGISTRY_DIR", "COMPASS_HOME",
	"BYPASS_CACHE", "CACHE_BYPASS", "NO_PROXY_BYPASS", "ENCOMPASS_DIR", "PASSTHROUGH", "PASSTHRU",
	"PGPASSFILE", "PGHOST", "PGPORT", "PGUSER", "PGDATABASE", "MYSQL_HOST", "MYSQL_TCP_PORT",
	"PWDEBUG", "PW_TEST_HTML_REPORT_OPEN", "PWTEST_SKIP_TEST_OUTPUT", "PWNAT",
	"CARGO_HOME", "RUSTUP_HOME", "NVM_DIR", "VIRTUAL_ENV", "PYTHONPATH", "JAVA_HOME", "NODE_ENV",
	"NODE_OPTIONS", "npm_config_cache", "PIP_CACHE_DIR", "MAVEN_OPTS", "GRADLE_USER_HOME",
	"CI", "GITHUB_ACTIONS", "GITHUB_SHA", "GITHUB_REF", "RUNNER_OS", "DEBIAN_FRONTEND",
	"DISPLAY", "WAYLAND_DISPLAY", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
	"HISTFILE", "HISTSIZE", "PS1", "PROMPT_COMMAND", "MANPATH", "INFOPATH", "LD_LIBRARY_PATH",
	"PKG_CONFIG_PATH", "CC", "CXX", "CFLAGS", "LDFLAGS", "MAKEFLAGS", "DB_HOST", "DB_USER", "DB_NAME",
	"DB_PORT", "SPW", "PW", "UPWD",
}

func TestScrubPasswords(t *testing.T) {
	if n := len(passwordNames) + len(ordinaryNames); n < 100 {
		t.Fatalf("only %d names in the tables", n)
	}
	for _, name := range passwordNames {
		if !looksSecret(name, "hunter2") {
			t.Errorf("%s is kept, want it removed", name)
		}
	}
	for _, name := range ordinaryNames {
		if looksSecret(name, "/usr/local/x") {
			t.Errorf("%s is removed, want it kept", name)
		}
	}
}

// TestScrubEnv checks the whole scrub from outside: names removed and
// reported, others kept in order, the policy's keep and scrub lists applied.
func TestScrubEnv(t *testing.T) {
	env := []string{"PATH=/bin", "MYSQL_PWD=x", "PWD=/work", "SSHPASS=y", "OLDPWD=/", "PASSENGER_APP_ENV=dev", "DB_PW=z", "LOCAL_PASS=w"}
	kept, removed := ScrubEnv(env, Env{Keep: []string{"LOCAL_PASS"}, Scrub: []string{"PASSENGER_*"}})
	if want := []string{"PATH=/bin", "PWD=/work", "OLDPWD=/", "LOCAL_PASS=w"}; !slices.Equal(kept, want) {
		t.Errorf("kept %q, want %q", kept, want)
	}
	if want := []string{"DB_PW", "MYSQL_PWD", "PASSENGER_APP_ENV", "SSHPASS"}; !slices.Equal(removed, want) {
		t.Errorf("removed %q, want %q", removed, want)
	}
}

// secretValueExamples holds one value in each format secretValuePattern knows.
var secretValueExamples = []string{
	"ghp_" + strings.Repeat("a", 36), "gho_" + strings.Repeat("B", 36), "ghu_" + strings.Repeat("1", 20),
	"ghs_" + strings.Repeat("c", 20), "ghr_" + strings.Repeat("d", 20), "github_pat_" + strings.Repeat("e", 22),
	"glpat-" + strings.Repeat("f", 20), "xoxb-1234567890-abc", "xoxp-" + strings.Repeat("9", 10),
	"sk-" + strings.Repeat("g", 40), "AKIA" + strings.Repeat("A", 16), "ASIA" + strings.Repeat("7", 16),
	"AIza" + strings.Repeat("h", 35), "npm_" + strings.Repeat("i", 36), "pypi-" + strings.Repeat("j", 40),
	"-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN OPENSSH PRIVATE KEY-----",
	"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig", "https://user:hunter2@example.com/x",
	"prefix ghp_" + strings.Repeat("k", 30) + " suffix",
}

// TestSecretValues checks that each value format is found by its value
// alone, under a name that does not look secret, and that ordinary values
// are not.
func TestSecretValues(t *testing.T) {
	for _, v := range secretValueExamples {
		if !looksSecret("SOME_SETTING", v) {
			t.Errorf("value %q is kept, want it removed", v)
		}
	}
	for _, v := range []string{"/usr/local/bin:/usr/bin", "en_US.UTF-8", "https://example.com/path", "desk-top", "ghost_", "xterm-256color"} {
		if looksSecret("SOME_SETTING", v) {
			t.Errorf("value %q is removed, want it kept", v)
		}
	}
}

// FuzzSecretValueMarkers checks the shortcut in secretValue: a value the
// pattern matches always holds one of the markers, so skipping the pattern
// for values without one never keeps a secret.
func FuzzSecretValueMarkers(f *testing.F) {
	for _, v := range secretValueExamples {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if secretValuePattern().MatchString(v) && !secretValue(v) {
			t.Errorf("the pattern matches %q, and secretValue misses it", v)
		}
	})
}
