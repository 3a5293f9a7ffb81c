package policy

import "testing"

// classTests13Ask: round 13's acts on the world outside that must ask,
// each by its effect (data sent to or changed in a store elsewhere,
// messages, credentials, deploys, commands run on another host, bundle
// installs), with the everyday uses next to them that stay allowed.
var classTests13Ask = []classTest{
	// A broker's producer or admin pointed at another host.
	{"broker", `kafka-console-producer --bootstrap-server kafka.prod.example.com:9092 --topic orders < orders.jsonl`, Ask},
	{"broker", `kafka-console-producer.sh --broker-list 10.0.4.2:9092 --topic t`, Ask},
	{"broker", `kcat -b broker.example.com:9092 -t orders -P -l msgs.json`, Ask},
	{"broker", `kafkacat -P -b "$KAFKA_BROKERS" -t orders`, Ask},
	{"broker", `kafka-topics --bootstrap-server=b.example.net:9092 --delete --topic orders`, Ask},
	{"broker", `mosquitto_pub -h mqtt.example.com -t sensors/x -m 1`, Ask},
	{"broker", `nats pub -s nats://nats.example.com:4222 orders.new '{}'`, Ask},
	{"broker", `rpk topic produce orders -X brokers=seed.redpanda.example.com:9092`, Ask},
	{"broker", `kafka-console-producer --bootstrap-server localhost:9092 --topic t`, Allow},
	{"broker", `kafka-console-producer --bootstrap-server kafka:9092 --topic t`, Allow},
	{"broker", `kcat -b broker.example.com:9092 -t orders -C -e`, Allow},
	{"broker", `kafka-topics --bootstrap-server b.example.net:9092 --list`, Allow},
	{"broker", `mosquitto_pub -t test -m hello`, Allow},

	// A key-value store's write on another host.
	{"redis", `redis-cli -u "$PROD_REDIS_URL" SET feature:checkout v2`, Ask},
	{"redis", `redis-cli -h prodhost SET a b`, Ask},
	{"redis", `redis-cli -h 10.0.3.4 -p 6380 HSET user:1 admin 1`, Ask},
	{"redis", `valkey-cli -h cache.example.com --tls LPUSH jobs x`, Ask},
	{"redis", `redis-cli -h cache.example.com --pipe < cmds.txt`, Ask},
	{"redis", `cat cmds.txt | redis-cli -h cache.example.com`, Ask},
	{"redis", `redis-cli < cmds.txt`, Allow},
	{"redis", `redis-cli -h redis SET a b`, Allow},
	{"redis", `redis-cli SET a b`, Allow},
	{"redis", `redis-cli -h cache.example.com GET a`, Allow},

	// A warehouse's load, DML or table change; its reads stay allowed.
	{"warehouse", `bq load --source_format=CSV --replace ds.events ./events.csv schema.json`, Ask},
	{"warehouse", `bq --location=EU query --nouse_legacy_sql 'INSERT INTO ds.t (a) VALUES (1)'`, Ask},
	{"warehouse", `bq query --destination_table ds.t2 'SELECT * FROM ds.t'`, Ask},
	{"warehouse", `bq rm -f -t ds.t`, Ask},
	{"warehouse", `snowsql -a acct -q "DELETE FROM orders WHERE 1=1"`, Ask},
	{"warehouse", `trino --server trino.example.com:443 --execute "INSERT INTO hive.x.y VALUES (1)"`, Ask},
	{"warehouse", `bq query --use_legacy_sql=false 'SELECT count(*) FROM ds.t'`, Allow},
	{"warehouse", `bq ls ds && bq show ds.t`, Allow},
	{"warehouse", `trino --server localhost:8080 --execute "CREATE TABLE memory.default.t (a int)"`, Allow},

	// A data tool told to work on production by a target or a config file.
	{"production", `dbt run --target prod --full-refresh`, Ask},
	{"production", `dbt build -t production`, Ask},
	{"production", `DBT_TARGET=prod dbt seed`, Ask},
	{"production", `flyway -configFiles=conf/prod.conf migrate`, Ask},
	{"production", `export DBT_TARGET=prod; dbt run`, Ask},
	{"production", `cd infra && flyway -configFiles=prod.conf migrate`, Ask},
	{"production", `liquibase --defaults-file=liquibase.prod.properties update`, Ask},
	{"production", `dbt run --target dev --select staging.orders`, Allow},
	{"production", `dbt test --target prod`, Allow},
	{"production", `flyway -configFiles=conf/dev.conf migrate`, Allow},
	{"production", `flyway -configFiles=conf/prod.conf info`, Allow},
	{"production", `docker build --target prod -t app .`, Allow},
	{"production", `vite build --config vite.prod.config.ts`, Allow},

	// An HTTP write to a search or document store elsewhere, a deploy or
	// build hook, a chat's hook.
	{"http", `curl -X POST 'https://es.example.com:9200/_reindex' -d '{"source":{"index":"a"},"dest":{"index":"b"}}'`, Ask},
	{"http", `curl -XPOST "$ES_URL/logs/_delete_by_query" -d '{}'`, Ask},
	{"http", `curl -X PUT https://search.example.com/idx/_settings -d '{}'`, Ask},
	{"http", `http PATCH https://api.example.com/v1/flags/checkout enabled:=true`, Ask},
	{"http", `http --ignore-stdin POST https://api.netlify.com/build_hooks/abc123`, Ask},
	{"http", `curl -X POST -d {} https://api.vercel.com/v1/integrations/deploy/prj_1/abc`, Ask},
	{"http", `curl -i -X POST -d '{"text": "Build passed"}' https://chat.example.com/hooks/xxx`, Ask},
	{"http", `curl -X POST 'http://localhost:9200/_reindex' -d '{}'`, Allow},
	{"http", `curl -X POST 'https://es.example.com:9200/logs/_search' -d '{"query":{}}'`, Allow},
	{"http", `curl -X PUT http://elasticsearch:9200/idx -d '{}'`, Allow},
	{"http", `curl -s https://chat.example.com/hooks/xxx`, Allow},

	// Files copied into a remote store or uploaded to a tracker.
	{"upload", `rclone copy ./reports gdrive:Shared/Reports`, Ask},
	{"upload", `rclone move ./x s3:bucket/x`, Ask},
	{"upload", `s3cmd put file s3://b/`, Ask},
	{"upload", `azcopy copy ./x 'https://acct.blob.core.windows.net/c'`, Ask},
	{"upload", `wandb sync --include-offline wandb/offline-run-*`, Ask},
	{"upload", `wandb artifact put -n proj/data ./data`, Ask},
	{"upload", `b2 upload-file bucket ./x x`, Ask},
	{"upload", `rclone --config rclone.conf --transfers 8 copy ./x remote:bucket`, Ask},
	{"upload", `rclone copy remote:bucket ./local`, Allow},
	{"upload", `rclone --config rclone.conf copy remote:bucket ./local`, Allow},
	{"upload", `s3cmd get s3://b/x ./x`, Allow},
	{"upload", `wandb offline`, Allow},

	// A hosted platform's data loaded, or a group's noun-verb.
	{"hosted", `firebase firestore:import gs://b/x --project acme-prod`, Ask},
	{"hosted", `gh project item-add 3 --owner acme --url https://github.com/acme/api/issues/1`, Ask},
	{"hosted", `gh project field-delete --id F1`, Ask},
	{"hosted", `gh project item-list 3 --owner acme`, Allow},
	{"hosted", `gh project list`, Allow},

	// An account's token given new scopes or switched.
	{"auth", `gh auth refresh -s admin:org,delete_repo`, Ask},
	{"auth", `gh auth switch --user other`, Ask},
	{"auth", `gcloud auth configure-docker europe-docker.pkg.dev`, Ask},
	{"auth", `gh auth status`, Allow},

	// Notifications sent whenever the tool runs.
	{"notify", `apprise -b "deploy done" "slack://T/B/C"`, Ask},
	{"notify", `telegram-send "deploy done"`, Ask},

	// Commands run on another machine that change it, however given.
	{"remote-shell", "ssh deploy@203.0.113.25 <<'R'\ncd /srv/app && git pull && docker compose up -d --build\nR", Ask},
	{"remote-shell", `ssh deploy@web.example.com bash -s < deploy.sh`, Ask},
	{"remote-shell", `ssh ops@app.example.com <<< 'docker restart api'`, Ask},
	{"remote-shell", `ssh -p 2222 ops@app.example.com 'sed -i s/a/b/ /etc/app.conf'`, Ask},
	{"remote-shell", `echo 'rm -rf /srv/old' | ssh ops@app.example.com bash`, Ask},
	{"remote-shell", `ssh host 'cd /srv && git pull'`, Ask},
	{"remote-shell", `ssh build.example 'uptime; df -h /'`, Allow},
	{"remote-shell", `ssh -oStrictHostKeyChecking=no ops@app.example.com 'docker compose -f /srv/app/compose.yml ps'`, Allow},
	{"remote-shell", `ssh ops@app.example.com 'tail -n 100 /var/log/app.log | grep ERROR'`, Allow},
	{"remote-shell", `ssh -T git@github.com`, Allow},

	{"remote-shell", `gcloud compute ssh vm-1 --command 'sudo systemctl restart api'`, Ask},
	{"remote-shell", `az ssh vm -n vm1 -g rg -- 'rm -rf /srv/old'`, Ask},
	{"remote-shell", `gcloud compute ssh vm-1 --zone us-central1-a --command='uptime'`, Allow},
	{"remote-shell", `tsh ssh root@node 'systemctl restart api'`, Ask},
	{"remote-shell", `mssh -r eu-west-1 i-123 'sudo reboot'`, Ask},
	{"remote-shell", `ssh -M -S /tmp/ctl build.example uptime`, Allow},
	{"remote-shell", `tsh ssh root@node 'journalctl -u api -n 20'`, Allow},
	{"hosted", `aws dynamodb batch-write-item --request-items file://items.json`, Ask},
	{"hosted", `az storage blob upload-batch -d c -s ./dist --account-name acct`, Ask},
	{"hosted", `wrangler d1 execute prod-db --remote --command "DELETE FROM users"`, Ask},
	{"hosted", `aws dynamodb batch-get-item --request-items file://k.json`, Allow},
	{"hosted", `wrangler d1 execute dev-db --local --command "SELECT 1"`, Allow},

	// File transfer clients told to upload, delete or change files there.
	{"transfer", `sftp deploy@web.example.com <<< 'put dist.tgz'`, Ask},
	{"transfer", `sftp -b upload.txt deploy@web.example.com`, Ask},
	{"transfer", `lftp -u user,pass ftp.example.com -e 'mirror -R ./site /www; quit'`, Ask},
	{"transfer", "ftp -n ftp.example.com <<'E'\nuser u p\nput dist.tgz\nbye\nE", Ask},
	{"transfer", `ncftpput -u u -p p ftp.example.com /www dist.tgz`, Ask},
	{"transfer", "sftp -P 2222 deploy@web.example.com <<'E'\ncd /srv\nget app.log\nE", Allow},
	{"transfer", `lftp -e 'mirror /www ./site; quit' ftp.example.com`, Allow},

	// Databases loaded from a file or a pipe elsewhere.
	{"database", `pg_dump app_dev | psql -h db.example.com app`, Ask},
	{"database", `psql "$PROD_DATABASE_URL" -c "\copy users from users.csv csv"`, Ask},
	{"database", `mongoimport --uri "mongodb+srv://u@prod.cluster.example.net/app" --collection users --file users.json`, Ask},
	{"database", `influx write -b metrics --host https://influx.example.com -f data.lp`, Ask},
	{"database", `pg_dump app_dev | psql -h localhost app_copy`, Allow},
	{"database", `mongoimport --uri mongodb://localhost:27017/app_dev --collection users --file users.json`, Allow},
	{"database", `influx query 'from(bucket:"x")' --host https://influx.example.com`, Allow},

	// Push notifications and CI pipelines triggered through HTTP.
	{"http", `curl -d "deploy done" ntfy.sh/mytopic`, Ask},
	{"http", `curl -X POST https://circleci.com/api/v2/project/gh/acme/api/pipeline`, Ask},
	{"http", `curl -s ntfy.sh/mytopic/json`, Allow},
	{"http", `curl --data-binary @x.csv 'https://ch.example.com:8443/?query=INSERT%20INTO%20t%20FORMAT%20CSV'`, Ask},
	{"http", `curl -X POST https://api.example.com/v1/users/1/delete`, Ask},
	{"http", `curl 'https://ch.example.com:8443/?query=SELECT%201'`, Allow},
	{"http", `curl -s https://api.example.com/v1/update`, Allow},
	{"http", `curl -H 'Content-type: application/json' --data-raw '{"text":"hi"}' "$MATTERMOST_HOOK"`, Ask},
	{"http", `az rest --method post --uri https://graph.microsoft.com/v1.0/teams/x/channels/y/messages --body @msg.json`, Ask},
	{"http", `az rest --uri https://graph.microsoft.com/v1.0/me`, Allow},

	// Inline code calling an SDK to restart, load, upload or produce.
	{"sdk", "python3 - <<'PY'\nfrom azure.mgmt.web import WebSiteManagementClient\nc = WebSiteManagementClient(cred, 'sub')\nc.web_apps.restart('rg-prod', 'web')\nPY", Ask},
	{"sdk", `python3 -c "from google.cloud import bigquery; bigquery.Client().load_table_from_file(open('x.csv','rb'), 'ds.t')"`, Ask},
	{"sdk", `python3 -c "import boto3; boto3.client('ec2').start_instances(InstanceIds=['i-1'])"`, Ask},
	{"sdk", `python3 -c "from confluent_kafka import Producer; p=Producer({'bootstrap.servers':'k.example.com:9092'}); p.produce('t', b'x')"`, Ask},
	{"sdk", `python3 -c "from google.cloud import bigquery; df=bigquery.Client().query('SELECT 1').to_dataframe(); print(df.reset_index())"`, Allow},

	// A bundle file's programs installed for the whole user.
	{"bundle", `brew bundle --file=Brewfile`, Ask},
	{"bundle", `brew bundle install --no-upgrade`, Ask},
	{"bundle", `home-manager switch`, Ask},
	{"bundle", `winget import -i packages.json`, Ask},
	{"bundle", `pipx install-all pipx.json`, Ask},
	{"bundle", `home-manager build`, Allow},
	{"bundle", `brew bundle check`, Allow},
	{"bundle", `brew bundle dump --force`, Allow},
}

func TestClasses13Ask(t *testing.T) { checkClasses(t, classTests13Ask) }
