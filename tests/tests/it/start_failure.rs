//! A Beckon that cannot start, end to end: the real app on a data folder whose database is not
//! Beckon's fills its window with why, in the runtime's own words, and leaves the file alone.

use beckon_e2e::{App, Failure, Home};

#[tokio::test]
async fn a_database_that_is_not_beckons_is_shown_full_window_and_left_untouched() -> Result<(), Failure> {
    let home = Home::new()?;
    let database = home.data_dir().join("beckon.db");
    let notes: &[u8] = b"notes, not a database: whatever this is, Beckon must leave it as it is\n";
    std::fs::write(&database, notes)?;
    let app = App::launch(&home).await?;
    app.find("main.fatal[role=alert] h1", "Beckon could not start").await?;
    let reason = "this is not a Beckon database (not an SQLite file); it was left untouched";
    app.find("main.fatal .fatal-message", reason).await?;
    // Trying again asks again, and meets the same reason: the runtime is not started twice.
    app.click("main.fatal button", "Try again").await?;
    app.find("main.fatal .fatal-message", reason).await?;
    assert_eq!(std::fs::read(&database)?, notes, "the file was changed");
    app.quit().await
}
