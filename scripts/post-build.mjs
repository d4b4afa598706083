// Trunk's post_build hook. Trunk starts a stage's hooks all at once, so the steps that must follow one another run
// here, in order: the page's split modules join the build (split-assets.mjs), then every asset is precompressed
// (precompress.mjs, release builds).
await import('./split-assets.mjs');
await import('./precompress.mjs');
