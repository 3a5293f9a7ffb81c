package policy

import "testing"

// Dry runs of mirrors with --delete and of destroys change nothing; the
// same commands without the tool's own dry-run option, or with the option
// given to another program, keep their verdicts.
var classTestsDryRun = []classTest{
	{"dry-run", "rsync -avn --delete public/ www@web.example:/var/www/site/", Allow},
	{"dry-run", "rsync -a --dry-run --delete dist/ deploy@198.51.100.7:/srv/app/", Allow},
	{"dry-run", "aws s3 sync build/ s3://www.shop.example --delete --dryrun", Allow},
	{"dry-run", "gsutil -m rsync -n -d -r out gs://bucket", Allow},
	{"dry-run", "mc mirror --remove --dry-run ./site minio/www", Allow},
	{"dry-run", "pulumi destroy --preview-only -s dev", Allow},
	{"dry-run", "rsync -av --delete public/ www@web.example:/var/www/site/", Ask},
	{"dry-run", "aws s3 sync build/ s3://www.shop.example --delete", Ask},
	{"dry-run", "gsutil -m rsync -d -r out gs://bucket", Ask},
	{"dry-run", "pulumi destroy --yes -s prod", Deny},
	{"dry-run", "sh -c 'pulumi destroy --yes -s prod' --dry-run", Deny},
	{"dry-run", "rsync -av --delete --exclude=-n public/ www@web.example:/var/www/site/", Ask},
}

func TestClassesDryRun(t *testing.T) { checkClasses(t, classTestsDryRun) }
