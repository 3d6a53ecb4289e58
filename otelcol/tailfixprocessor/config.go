package tailfixprocessor

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/tailfix/tailfix/patterns"
)

// Config is the processor's configuration.
type Config struct {
	// Patterns are directories of pattern records to add to the built-in
	// ones, as tailfix's --patterns: a record of the same id replaces the
	// built-in one.
	Patterns []string `mapstructure:"patterns"`
	// MinSeverity is the least severity of a finding whose records are
	// annotated and that gets a finding record: info, warning, error or
	// fatal.
	MinSeverity string `mapstructure:"min_severity"`
	// IdleTimeout drops the diagnosis of a stream that has sent no record
	// for this long.
	IdleTimeout time.Duration `mapstructure:"idle_timeout"`
	// StreamKeys are the attributes that tell one log stream from another,
	// each taken from the resource, or else from the record (filelog puts
	// log.file.path on the record). Records with none of them are keyed by
	// all their resource's attributes.
	StreamKeys []string `mapstructure:"stream_keys"`
	// MaxStreams bounds the streams diagnosed at once; past it the one
	// idle longest is dropped.
	MaxStreams int `mapstructure:"max_streams"`
}

// DefaultStreamKeys tell apart the containers of Kubernetes pods, services
// and their instances, hosts, and files read by the filelog receiver.
var DefaultStreamKeys = []string{
	"k8s.namespace.name", "k8s.pod.name", "k8s.container.name",
	"service.namespace", "service.name", "service.instance.id",
	"host.name", "log.file.path",
}

func createDefaultConfig() *Config {
	return &Config{
		MinSeverity: "error",
		IdleTimeout: 10 * time.Minute,
		StreamKeys:  append([]string(nil), DefaultStreamKeys...),
		MaxStreams:  1000,
	}
}

// Validate checks the configuration; the collector calls it before the
// processor is made.
func (c *Config) Validate() error {
	var errs []error
	if _, err := patterns.ParseSeverity(c.MinSeverity); err != nil {
		errs = append(errs, fmt.Errorf("min_severity: %w", err))
	}
	if c.IdleTimeout <= 0 {
		errs = append(errs, fmt.Errorf("idle_timeout: must be more than 0, such as 10m (is %v)", c.IdleTimeout))
	}
	if c.MaxStreams <= 0 {
		errs = append(errs, fmt.Errorf("max_streams: must be at least 1 (is %d)", c.MaxStreams))
	}
	for i, k := range c.StreamKeys {
		if k == "" {
			errs = append(errs, fmt.Errorf("stream_keys[%d]: empty attribute name", i))
		}
	}
	for _, dir := range c.Patterns {
		switch st, err := os.Stat(dir); {
		case err != nil:
			errs = append(errs, fmt.Errorf("patterns: %w", err))
		case !st.IsDir():
			errs = append(errs, fmt.Errorf("patterns: %q is not a directory", dir))
		}
	}
	return errors.Join(errs...)
}
