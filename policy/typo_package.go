package policy

import "strings"

// A typo-squatted package is published under a name one keystroke off a
// widely used one (reqeusts, lodahs, expres), waiting for someone to
// mistype it; installing it runs its install scripts at once and its code
// whenever the project runs. typoPackageInstall finds an install whose
// package name is one edit (a letter changed, added, dropped, or two
// swapped) from a widely used package of the same ecosystem and is not a
// widely used package itself (rule installs-typo-package).

// packageInstallVerbs: per installer, the subcommands that install packages.
var packageInstallVerbs = map[string]map[string]bool{
	"pip": {"install": true, "download": true}, "pip3": {"install": true, "download": true},
	"uv": {"add": true, "pip": true, "tool": true, "sync": true, "lock": true}, "pipx": {"install": true, "run": true, "inject": true},
	"poetry": {"add": true}, "pdm": {"add": true}, "pipenv": {"install": true},
	"npm":  {"install": true, "i": true, "add": true, "ci": true, "in": true, "ins": true, "inst": true, "insta": true, "instal": true, "isnt": true, "isnta": true, "isntal": true, "isntall": true},
	"pnpm": {"add": true, "install": true, "i": true}, "yarn": {"add": true, "global": true}, "bun": {"add": true, "install": true, "i": true, "a": true},
	"gem": {"install": true, "i": true}, "cargo": {"add": true, "install": true},
}

// ecosystemOf names each installer's ecosystem, the key of popularPackages.
var ecosystemOf = map[string]string{
	"pip": "py", "pip3": "py", "uv": "py", "pipx": "py", "poetry": "py", "pdm": "py", "pipenv": "py",
	"npm": "js", "pnpm": "js", "yarn": "js", "bun": "js", "gem": "rb", "cargo": "rs",
}

// popularPackages: widely used packages per ecosystem, and real packages
// one edit from another of them (scapy and scipy, preact and react, toml
// and tomli), so that neither is taken for a typo of the other.
var popularPackages = map[string]map[string]bool{
	"py": wordSet(`requests numpy pandas django flask fastapi urllib3 setuptools boto3 boto botocore pyyaml pyaml six python-dateutil certifi idna
		charset-normalizer typing-extensions cryptography pydantic jinja2 jinja markupsafe click attrs attr pytest packaging wheel pip scipy scapy
		scikit-learn matplotlib pillow sqlalchemy psycopg2 psycopg psycopg2-binary redis celery httpx aiohttp tensorflow torch torchx torchvision
		torchaudio transformers keras beautifulsoup4 lxml selenium openai anthropic colorama tqdm rich uvicorn gunicorn werkzeug pymongo paramiko
		pyjwt jsonschema protobuf grpcio virtualenv black flake8 mypy pylint isort ruff coverage tox nox poetry docutils sphinx pygments toml tomli
		tomlkit filelock platformdirs pluggy iniconfig wrapt decorator simplejson ujson orjson arrow pendulum pytz tzdata regex nltk spacy
		opencv-python seaborn plotly dash streamlit gradio langchain tiktoken sentry-sdk stripe twilio docker kubernetes ansible fabric invoke
		websockets pyserial pycryptodome bcrypt passlib marshmallow alembic asyncpg aiofiles starlette mock faker hypothesis openpyxl xlsxwriter
		pyarrow polars dask numba sympy networkx kafka-python elasticsearch google-cloud-storage awscli moto responses freezegun loguru structlog
		python-dotenv termcolor tabulate pyinstaller cython pybind11 cffi pycparser greenlet gevent eventlet tornado twisted scrapy pytest-cov
		pytest-mock pytest-asyncio pre-commit jupyter notebook ipython ipykernel jupyterlab accelerate datasets huggingface-hub safetensors
		sentencepiece tokenizers xgboost lightgbm catboost statsmodels shapely geopandas pyproj fiona rasterio boto3-stubs types-requests
		pydantic-settings typer httpcore anyio sniffio h11 multidict yarl frozenlist aiosignal async-timeout markdown pyopenssl rsa oauthlib
		requests-oauthlib google-auth cachetools pyasn1 grpcio-tools lazy-object-proxy more-itertools zipp importlib-metadata jmespath
		s3transfer distlib virtualenv-clone setuptools-scm flit hatch hatchling pdm uv pipenv pipx twine build requests-toolbelt
		simpy patch dataset tokenizer future`),
	"js": wordSet(`react react-dom preact lodash lodash-es express axios moment chalk commander debug vue typescript webpack webpack-cli eslint
		prettier jest mocha chai next nuxt svelte vite rollup esbuild dotenv dotenvx uuid yargs inquirer request async bluebird underscore jquery
		rxjs redux react-redux mongoose sequelize knex pg mysql mysql2 sqlite sqlite3 redis ioredis socket.io cors body-parser cookie-parser morgan
		helmet jsonwebtoken bcrypt bcryptjs nodemon ts-node tsx zod yup dayjs date-fns classnames styled-components tailwindcss postcss
		autoprefixer sass less glob rimraf mkdirp minimist semver colors color cross-env concurrently husky lint-staged puppeteer playwright
		cheerio node-fetch ws graphql prisma fastify koa hapi immer mobx zustand swr formik three d3 chart.js echarts luxon validator nanoid
		ramda immutable joi ajv winston pino sharp multer nodemailer passport electron vitest jsdom happy-dom babel-loader css-loader
		style-loader file-loader ts-loader sass-loader html-webpack-plugin webpack-dev-server nodemailer express-session connect-redis
		react-router react-router-dom react-query swiper framer-motion lucide-react clsx tailwind-merge class-variance-authority
		eslint-config-prettier eslint-plugin-react typeorm mongodb firebase firebase-admin aws-sdk openai stripe twilio socket.io-client
		uglify-js terser core-js regenerator-runtime tslib rxjs fs-extra chokidar execa ora boxen figlet yaml js-yaml xml2js qs
		query-string form-data formidable busboy http-proxy http-proxy-middleware serve-static compression cookie express-validator
		passport-jwt passport-local nock supertest sinon cypress storybook turbo nx lerna
		jslint jshint cookies`),
	"rb": wordSet(`rails rake bundler rspec rspec-rails nokogiri devise puma sidekiq rack pry rubocop sinatra json activesupport activerecord faraday
		httparty thor minitest capybara factory_bot faker redis pg mysql2 sqlite3 jbuilder bootsnap sprockets webpacker turbo-rails
		stimulus-rails importmap-rails aws-sdk-s3 dotenv-rails rest-client byebug listen spring solargraph`),
	"rs": crateSet(`serde serde_json serde_derive tokio rand clap reqwest anyhow thiserror regex chrono log env_logger syn quote proc-macro2
		hyper axum tracing tracing-subscriber futures bytes itertools lazy_static once_cell uuid sqlx diesel actix-web rayon crossbeam
		base64 hex sha2 ring rustls tonic prost bindgen cc libc nix walkdir tempfile dirs toml url`),
}

// crateSet: crates.io takes - and _ for one another.
func crateSet(s string) map[string]bool { return wordSet(strings.ReplaceAll(s, "-", "_")) }

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// typoPackageInstall reports whether an installer is told to install a
// package named one edit away from a popular package of its ecosystem.
func typoPackageInstall(a *argv) bool {
	verbs, ok := packageInstallVerbs[a.name]
	if !ok || !verbs[a.subcommand] {
		return false
	}
	popular := popularPackages[ecosystemOf[a.name]]
	for _, w := range a.positionals {
		name := packageName(w, ecosystemOf[a.name])
		if name == "" || popular[name] || name == a.subcommand {
			continue
		}
		for p := range popular {
			if len(p) >= 5 && oneEdit(name, p) && !digitVariant(name, p) {
				return true
			}
		}
	}
	return false
}

// packageName: the bare, normalized name of a package spec
// (requests[socks]>=2 -> requests, lodash@4 -> lodash), or "" for what is
// not a registry name (a path, an address, a scoped npm package).
func packageName(spec, eco string) string {
	if spec == "" || strings.ContainsAny(spec, "/:\\$") || strings.HasPrefix(spec, ".") || strings.HasPrefix(spec, "@") {
		return ""
	}
	if i := strings.IndexAny(spec, "[<>=!~;@ "); i >= 0 {
		spec = spec[:i]
	}
	spec = strings.ToLower(spec)
	switch eco {
	case "py": // pip's normalization
		spec = strings.NewReplacer("_", "-", ".", "-").Replace(spec)
	case "rs": // crates.io's: serde-json is serde_json
		spec = strings.ReplaceAll(spec, "-", "_")
	}
	if len(spec) < 4 || strings.Trim(spec, "abcdefghijklmnopqrstuvwxyz0123456789-_.") != "" {
		return ""
	}
	return spec
}

// oneEdit: a and b differ by one letter changed, added or dropped, or two
// neighbours swapped.
func oneEdit(a, b string) bool {
	if a == b {
		return false
	}
	la, lb := len(a), len(b)
	switch {
	case la == lb:
		i := 0
		for i < la && a[i] == b[i] {
			i++
		}
		if a[i+1:] == b[i+1:] {
			return true
		}
		return i+1 < la && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
	case la == lb+1:
		a, b = b, a
		fallthrough
	case la+1 == lb:
		// b is a with one letter more
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		return a[i:] == b[i+1:]
	}
	return false
}

// digitVariant: one name is the other with a version digit at its end
// (jinja2 and jinja, mysql2 and mysql): real packages, not typos.
func digitVariant(a, b string) bool {
	if len(a) < len(b) {
		a, b = b, a
	}
	return len(a) == len(b)+1 && strings.HasPrefix(a, b) && a[len(a)-1] >= '0' && a[len(a)-1] <= '9'
}
