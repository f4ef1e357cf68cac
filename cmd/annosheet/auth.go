package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
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
		Name:  "auth",
		Usage: "sign in to Google (for --format gsheets)",
		Description: "annosheet asks Google for one permission: the drive.file scope, which reaches only\n" +
			"the spreadsheets annosheet creates. The token is kept in the user config folder,\n" +
			"readable by you alone. A service account key in GOOGLE_APPLICATION_CREDENTIALS is\n" +
			"used instead when set.",
		Action: cliargs.Group,
		Subcommands: []*cli.Command{
			{
				Name:  "login",
				Usage: "sign in with a browser and save the token",
				Description: "Needs an OAuth client of type \"Desktop app\" from the Google Cloud console\n" +
					"(APIs & Services > Credentials), with the Sheets and Drive APIs enabled.\n\n" +
					"Example:\n" +
					"   annosheet auth login --client-secret client_secret.json",
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

func tokenStore() (googleauth.Store, error) {
	p, err := googleauth.DefaultPath()
	return googleauth.Store{Path: p}, err
}

func runLogin(ctx context.Context, opt loginOptions, stdout, stderr io.Writer) error {
	if opt.ClientSecret == "" {
		return cliargs.Usagef("auth login needs --client-secret FILE (or ANNOSHEET_CLIENT_SECRET): a \"Desktop app\" OAuth client from the Google Cloud console")
	}
	cfg, err := googleauth.ReadClientSecret(opt.ClientSecret)
	if err != nil {
		return err
	}
	store, err := tokenStore()
	if err != nil {
		return err
	}
	// A dry run's sign-in must not silently replace the real one.
	if old, err := store.Load(); err == nil && old.TokenURL != cfg.Endpoint.TokenURL {
		return fmt.Errorf("%s holds a sign-in to %s; run 'annosheet auth logout' first, or give this one its own folder with ANNOSHEET_CONFIG_DIR", store.Path, old.TokenURL)
	}
	lo := googleauth.LoginOptions{Notify: stderr, Port: opt.Port, Timeout: opt.Timeout}
	if !opt.NoBrowser {
		lo.Open = openBrowser
	}
	tok, err := googleauth.Login(ctx, cfg, lo)
	if err != nil {
		return err
	}
	if err := store.Save(googleauth.NewCache(cfg, tok)); err != nil {
		return fmt.Errorf("save the token: %w", err)
	}
	fmt.Fprintf(stdout, "signed in to Google (scope drive.file); token saved to %s, readable by you alone\n", store.Path)
	return nil
}

func runStatus(ctx context.Context, g googleOptions, stdout, stderr io.Writer) error {
	if key := os.Getenv(sheets.EnvServiceAccount); key != "" {
		email, err := sheets.ServiceAccountEmail(key)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "service account %s (key %s, from %s)\n", email, key, sheets.EnvServiceAccount)
		fmt.Fprintln(stdout, "a service account cannot own spreadsheets: give generate --folder, a folder of a shared drive it can write to")
		return nil
	}
	store, err := tokenStore()
	if err != nil {
		return err
	}
	c, err := store.Load()
	if errors.Is(err, googleauth.ErrNotSignedIn) {
		return sheets.ErrNoCredentials
	}
	if err != nil {
		return err
	}
	// A fresh token is the only way to know the sign-in still holds (it
	// may have been revoked).
	tok, err := store.Refresh(ctx)
	if err != nil {
		return err
	}
	who := "an account Google did not name"
	if cl, err := g.client(ctx, stderr); err == nil {
		if about, err := cl.Drive.About.Get().Fields("user(emailAddress)").Context(ctx).Do(); err == nil && about.User != nil {
			who = about.User.EmailAddress
		}
	}
	fmt.Fprintf(stdout, "signed in as %s, with OAuth client %s (scope drive.file); token in %s\n", who, c.ClientID, store.Path)
	fmt.Fprintf(stdout, "Google accepts it: access token valid until %s\n", tok.Expiry.Local().Format(time.DateTime))
	return nil
}

func runLogout(ctx context.Context, stdout, stderr io.Writer) error {
	store, err := tokenStore()
	if err != nil {
		return err
	}
	c, err := store.Load()
	if errors.Is(err, googleauth.ErrNotSignedIn) {
		fmt.Fprintln(stdout, "not signed in; nothing to do")
		return nil
	}
	if err == nil {
		if rerr := googleauth.Revoke(ctx, nil, c); rerr != nil {
			fmt.Fprintf(stderr, "warning: %v; the token is deleted here, and you can remove annosheet's access in your Google account's security settings\n", rerr)
		}
	}
	if err := store.Delete(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "signed out; deleted %s\n", store.Path)
	return nil
}

// openBrowser opens a link in the user's browser.
func openBrowser(link string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", link)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", link)
	default:
		cmd = exec.Command("xdg-open", link)
	}
	return cmd.Start()
}
