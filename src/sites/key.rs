//! What one site is (`sites --site-key`): a host name, without its `www.`, or its
//! registrable domain.

use crate::census::urls::{host_name, registrable_domain};

/// How captures are grouped into sites (`sites --site-key`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum SiteKey {
    /// The host name (ports and schemes merged): `www.example.com` and `example.com` differ.
    #[default]
    Host,
    /// The host name with one leading `www.` removed: `www.example.com` is `example.com`.
    HostNowww,
    /// The registrable domain: every subdomain of `example.co.uk` is one site.
    RegistrableDomain,
}

impl SiteKey {
    pub fn as_str(self) -> &'static str {
        match self {
            SiteKey::Host => "host",
            SiteKey::HostNowww => "host-nowww",
            SiteKey::RegistrableDomain => "registrable-domain",
        }
    }

    /// The site of a host (`host[:port]`, lower-cased). A host without a
    /// registrable domain (an IP address, a bare public suffix) is its own site.
    pub fn site_of(self, host: &str) -> &str {
        let name = host_name(host);
        match self {
            SiteKey::Host => name,
            SiteKey::HostNowww => name.strip_prefix("www.").unwrap_or(name),
            SiteKey::RegistrableDomain => registrable_domain(name).unwrap_or(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_keys() {
        let h = "www.shop.example.co.uk:8080";
        assert_eq!(SiteKey::Host.site_of(h), "www.shop.example.co.uk");
        assert_eq!(SiteKey::HostNowww.site_of(h), "shop.example.co.uk");
        assert_eq!(SiteKey::RegistrableDomain.site_of(h), "example.co.uk");
        assert_eq!(SiteKey::RegistrableDomain.site_of("10.0.0.1"), "10.0.0.1");
    }
}
