"""The registry each ecosystem is read from, by name and home URL, as the root answer and the web pages
name it to people."""

from __future__ import annotations

from pkgintel.domain.packages import Ecosystem

REGISTRIES: dict[Ecosystem, tuple[str, str]] = {
    Ecosystem.NPM: ("npm", "https://registry.npmjs.org"),
    Ecosystem.PYPI: ("PyPI", "https://pypi.org"),
    Ecosystem.CARGO: ("crates.io", "https://crates.io"),
    Ecosystem.GO: ("Go modules", "https://proxy.golang.org"),
    Ecosystem.MAVEN: ("Maven Central", "https://repo1.maven.org/maven2"),
    Ecosystem.NUGET: ("NuGet", "https://api.nuget.org"),
    Ecosystem.RUBYGEMS: ("RubyGems", "https://rubygems.org"),
    Ecosystem.COMPOSER: ("Packagist", "https://repo.packagist.org"),
    Ecosystem.PUB: ("pub.dev", "https://pub.dev"),
    Ecosystem.HEX: ("Hex", "https://hex.pm"),
    Ecosystem.SWIFT: ("Swift Package Index", "https://swiftpackageindex.com"),
    Ecosystem.COCOAPODS: ("CocoaPods", "https://cdn.cocoapods.org"),
    Ecosystem.CPAN: ("CPAN (MetaCPAN)", "https://fastapi.metacpan.org"),
    Ecosystem.HACKAGE: ("Hackage", "https://hackage.haskell.org"),
    Ecosystem.CRAN: ("CRAN", "https://cran.r-project.org"),
    Ecosystem.CONDA: ("Anaconda / conda-forge", "https://api.anaconda.org"),
    Ecosystem.HOMEBREW: ("Homebrew", "https://formulae.brew.sh"),
    Ecosystem.JULIA: ("Julia General registry", "https://github.com/JuliaRegistries/General"),
    Ecosystem.JSR: ("JSR", "https://jsr.io"),
}
