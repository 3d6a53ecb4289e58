package tailfixprocessor

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processorhelper"
	"go.uber.org/zap"

	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
)

// Type is the processor's name in a collector's configuration.
var Type = component.MustNewType("tailfix")

// NewFactory returns the factory of the tailfix logs processor.
func NewFactory() processor.Factory {
	return processor.NewFactory(Type,
		func() component.Config { return createDefaultConfig() },
		processor.WithLogs(createLogs, component.StabilityLevelAlpha))
}

func createLogs(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Logs) (processor.Logs, error) {
	c := cfg.(*Config)
	m, err := load(c.Patterns, set.Logger)
	if err != nil {
		return nil, err
	}
	return create(ctx, set, c, next, m, time.Now)
}

// create makes the processor over a compiled pack, with a clock.
func create(ctx context.Context, set processor.Settings, cfg *Config, next consumer.Logs, m *matcher.Matcher, now func() time.Time) (processor.Logs, error) {
	p := newProcessor(cfg, m, next, now)
	return processorhelper.NewLogs(ctx, set, cfg, next, p.process,
		processorhelper.WithCapabilities(consumer.Capabilities{MutatesData: true}),
		processorhelper.WithShutdown(p.shutdown))
}

// load compiles the built-in pack with the records of dirs added, as
// tailfix's --patterns does.
func load(dirs []string, log *zap.Logger) (*matcher.Matcher, error) {
	pack, err := patterns.Builtin()
	if err != nil {
		return nil, fmt.Errorf("built-in patterns: %w", err)
	}
	for _, dir := range dirs {
		extra, err := patterns.LoadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("load patterns from %q: %w", dir, err)
		}
		for _, r := range extra.Records {
			if old := pack.Lookup(r.ID); old != nil && r.Gen == nil {
				log.Warn("a record of patterns replaces the built-in record of the same id",
					zap.String("record", r.ID), zap.String("patterns", dir),
					zap.Stringer("severity", r.Severity), zap.Stringer("was", old.Severity))
			}
		}
		if pack, err = pack.With(extra); err != nil {
			return nil, fmt.Errorf("load patterns from %q: %w", dir, err)
		}
	}
	return matcher.Compile(pack)
}
