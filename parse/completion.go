package parse

import (
	"slices"
	"strings"
)

// completionTools print the shell completion code of their own commands
// (npm completion, kubectl completion bash, rustup completions zsh, pip
// completion --bash), meant for eval "$(...)" or source <(...) as the
// shellSetup tools' output is. Each has the subcommand or option built in:
// a build tool (make, just's recipes) or a package manager that runs a
// project's script by name would print what the project says instead.
var completionTools = map[string]bool{
	"npm": true, "pnpm": true, "bun": true, "deno": true, "kubectl": true, "helm": true, "gh": true, "glab": true, "docker": true,
	"podman": true, "minikube": true, "kind": true, "k3d": true, "rustup": true, "pip": true, "pip3": true, "poetry": true, "uv": true,
	"ruff": true, "flux": true, "argocd": true, "stern": true, "kustomize": true, "skaffold": true, "tilt": true, "velero": true,
	"istioctl": true, "hugo": true, "golangci-lint": true, "goreleaser": true, "doctl": true, "hcloud": true, "fly": true, "flyctl": true,
	"oc": true, "kn": true, "tkn": true, "eksctl": true, "buf": true, "cilium": true, "k9s": true, "kubeadm": true, "crictl": true,
	"nerdctl": true, "rclone": true, "restic": true, "gopass": true, "hx": true, "atuin": true, "pipx": true, "volta": true, "fnm": true,
}

// completionShellWords are the words a completion command may take: the
// shell to print for, and options naming it.
var completionShellWords = []string{"bash", "zsh", "fish", "-s", "--shell", "--shell=bash", "--shell=zsh", "--bash", "--zsh", "-"}

// completionOutput reports whether f (the words of a command substitution)
// prints a tool's completion code: TOOL completion[s] [SHELL].
func completionOutput(f []string) bool {
	if len(f) < 2 || !completionTools[f[0]] || f[1] != "completion" && f[1] != "completions" {
		return false
	}
	for _, a := range f[2:] {
		if !slices.Contains(completionShellWords, strings.Trim(a, `'`)) {
			return false
		}
	}
	return true
}

// setupEval is an eval of a setup tool's output, kept until the whole
// script has been read.
type setupEval struct {
	tool string
	w    word
	via  []string
	// of the eval's invocation (a pointer into out would not last)
	background, endless bool
}
