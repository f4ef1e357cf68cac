package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/googleauth"
)

type loginOptions struct {
	ClientSecret string
	NoBrowser    bool
	Port         int
	Timeout      time.Duration
}

func authCommand() *cli.Command {
	return &cli.Command{
		Name:        "auth",
		Usage:       "sign in to Google (for --format gsheets)",
		Description: help("auth"),
		Action:      cliargs.Group,
		Subcommands: []*cli.Command{
			{
				Name:        "login",
				Usage:       "sign in with a browser and save the token",
				Description: help("auth-login"),
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "client-secret", EnvVars: []string{"ANNOSHEET_CLIENT_SECRET"}, Usage: "the OAuth client `FILE` downloaded from the Google Cloud console"},
					&cli.BoolFlag{Name: "no-browser", Usage: "print the sign-in link instead of opening a browser"},
					&cli.IntFlag{Name: "port", Usage: "loopback `PORT` for Google's answer (default: any free port)"},
					&cli.DurationFlag{Name: "timeout", Value: 5 * time.Minute, Usage: "how long to wait for the sign-in"},
				},
				Action: func(c *cli.Context) error {
					if err := cliargs.NoArgs(c); err != nil {
						return err
					}
					return runLogin(c.Context, loginOptions{
						ClientSecret: c.String("client-secret"), NoBrowser: c.Bool("no-browser"),
						Port: c.Int("port"), Timeout: c.Duration("timeout"),
					}, c.App.Writer, c.App.ErrWriter)
				},
			},
			{
				Name:  "status",
				Usage: "say who annosheet signs in as, and check that Google still accepts it",
				Flags: googleFlags(),
				Action: func(c *cli.Context) error {
					if err := cliargs.NoArgs(c); err != nil {
						return err
					}
					return runStatus(c.Context, googleFrom(c), c.App.Writer, c.App.ErrWriter)
				},
			},
			{
				Name:  "logout",
				Usage: "revoke the token at Google and delete it",
				Action: func(c *cli.Context) error {
					if err := cliargs.NoArgs(c); err != nil {
						return err
					}
					return runLogout(c.Context, c.App.Writer, c.App.ErrWriter)
				},
			},
		},
	}
}

func runLogin(ctx context.Context, opt loginOptions, stdout, stderr io.Writer) error {
	if opt.ClientSecret == "" {
		return cliargs.Usagef("auth login needs --client-secret FILE (or ANNOSHEET_CLIENT_SECRET): a \"Desktop app\" OAuth client from the Google Cloud console")
	}
	lo := googleauth.LoginOptions{Notify: stderr, Port: opt.Port, Timeout: opt.Timeout}
	if !opt.NoBrowser {
		lo.Open = googleauth.OpenBrowser
	}
	path, err := sheets.SaveSignIn(ctx, opt.ClientSecret, lo)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "signed in to Google (scope drive.file); token saved to %s, readable by you alone\n", path)
	return nil
}

func runStatus(ctx context.Context, g googleOptions, stdout, stderr io.Writer) error {
	a, err := sheets.Status(ctx, g.options(stderr))
	if err != nil {
		return err
	}
	for _, line := range a.Lines() {
		fmt.Fprintln(stdout, line)
	}
	return nil
}

func runLogout(ctx context.Context, stdout, stderr io.Writer) error {
	path, err := sheets.SignOut(ctx, func(err error) { fmt.Fprintf(stderr, "warning: %v\n", err) })
	if err != nil {
		return err
	}
	if path == "" {
		fmt.Fprintln(stdout, "not signed in; nothing to do")
		return nil
	}
	fmt.Fprintf(stdout, "signed out; deleted %s\n", path)
	return nil
}
