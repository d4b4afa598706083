//! Hash routing (`#/design`, `#/generate`, …): works on any static host, under any sub-path, with deep links
//! and without a server-side fallback.

/// The app's areas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    Design,
    Generate,
    Browse,
    Evaluate,
    Results,
    About,
}

impl Route {
    /// Every route, in navigation order.
    pub const ALL: [Route; 6] = [Route::Design, Route::Generate, Route::Browse, Route::Evaluate, Route::Results, Route::About];

    /// The path after `#`.
    pub fn path(self) -> &'static str {
        match self {
            Route::Design => "/design",
            Route::Generate => "/generate",
            Route::Browse => "/browse",
            Route::Evaluate => "/evaluate",
            Route::Results => "/results",
            Route::About => "/about",
        }
    }

    /// The navigation label.
    pub fn label(self) -> &'static str {
        match self {
            Route::Design => "Design",
            Route::Generate => "Generate",
            Route::Browse => "Browse",
            Route::Evaluate => "Evaluate",
            Route::Results => "Results",
            Route::About => "About",
        }
    }

    /// Parses a location hash (`#/design?x=1`); unknown or empty hashes go to Design.
    pub fn from_hash(hash: &str) -> Route {
        Route::from_hash_or(hash, Route::Design)
    }

    /// Parses a location hash; unknown or empty hashes go to `start` (a site's start page).
    pub fn from_hash_or(hash: &str, start: Route) -> Route {
        let path = hash.trim_start_matches('#');
        let path = path.split(['?', '&']).next().unwrap_or("");
        let first = path.trim_start_matches('/').split('/').next().unwrap_or("");
        Route::ALL.into_iter().find(|r| r.path().trim_start_matches('/') == first).unwrap_or(start)
    }

    /// The page a root URL opens on: the one a site's `<meta name="arbigraph-start">` names, else Design.
    pub fn start(meta: Option<&str>) -> Route {
        let named = meta.unwrap_or_default().trim().trim_start_matches('/');
        Route::ALL.into_iter().find(|r| r.path().trim_start_matches('/') == named).unwrap_or(Route::Design)
    }
}

// The query part of a hash: plain Rust, beside the query parsing it feeds.
pub use crate::app::hash::hash_query;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_map_to_routes_with_queries() {
        assert_eq!(Route::from_hash("#/generate?seed=3"), Route::Generate);
        assert_eq!(Route::from_hash("#/results"), Route::Results);
        assert_eq!(Route::from_hash(""), Route::Design);
        assert_eq!(Route::from_hash("#/nowhere"), Route::Design);
        assert_eq!(hash_query("#/generate?seed=3&i=2"), "seed=3&i=2");
        let browse = Route::start(Some("browse"));
        assert_eq!((browse, Route::start(Some("results")), Route::start(None), Route::start(Some("nowhere"))), (Route::Browse, Route::Results, Route::Design, Route::Design));
        assert_eq!(Route::from_hash_or("", browse), Route::Browse, "a site's root opens on its datasets");
        assert_eq!(Route::from_hash_or("#/design", browse), Route::Design, "a link to a page still opens it");
        for route in Route::ALL {
            assert_eq!(Route::from_hash(&format!("#{}", route.path())), route);
        }
    }
}
