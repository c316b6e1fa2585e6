//! The labels travel documents print over their fields, in the languages of the documents
//! (a label often gives the field's name in two or three of them: `Date of issue/Date de
//! délivrance`), compared without case, accents, spaces or punctuation, since the recogniser
//! may join words (`Dateofexpiry`) and drop accents.

use unicode_normalization::UnicodeNormalization;

/// A field of the visual zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VisualFieldName {
    /// The surname(s) as printed.
    Surname,
    /// The given names as printed.
    GivenNames,
    /// The date of birth as printed.
    DateOfBirth,
    /// The place of birth (not in the MRZ).
    PlaceOfBirth,
    /// The date of issue (not in the MRZ).
    DateOfIssue,
    /// The date of expiry as printed.
    DateOfExpiry,
    /// The issuing authority (not in the MRZ).
    IssuingAuthority,
    /// A personal or national identity number.
    PersonalNumber,
    /// The document number as printed.
    DocumentNumber,
    /// The sex as printed.
    Sex,
}

impl VisualFieldName {
    /// The field's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            VisualFieldName::Surname => "surname",
            VisualFieldName::GivenNames => "given_names",
            VisualFieldName::DateOfBirth => "birth_date",
            VisualFieldName::PlaceOfBirth => "place_of_birth",
            VisualFieldName::DateOfIssue => "date_of_issue",
            VisualFieldName::DateOfExpiry => "expiry_date",
            VisualFieldName::IssuingAuthority => "issuing_authority",
            VisualFieldName::PersonalNumber => "personal_number",
            VisualFieldName::DocumentNumber => "document_number",
            VisualFieldName::Sex => "sex",
        }
    }
}

/// What a line of the page is, when it is a label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Label {
    /// The label of a field read here.
    Field(VisualFieldName),
    /// The label of something else (nationality, type, signature): its value is no field's.
    Other,
}

use VisualFieldName as F;

/// Each field's label words, normalised (lower case, no accents, spaces or punctuation),
/// separated by spaces. Words of four letters or fewer must stand alone in the line, since
/// they hide inside longer words (`nom` in `prenoms`).
const FIELDS: &[(VisualFieldName, &str)] = &[
    (
        F::Surname,
        "surname name nom apellidos apellido cognome achternaam nazwisko sobrenome apelido \
         nachname familienname efternamn etternavn efternavn sukunimi prijmeni priezvisko \
         uzvards pavarde perekonnanimi vezeteknev nume prezime priimek epwnymo surnames",
    ),
    (
        F::GivenNames,
        "givenname givennames forenames vornamen vorname prenoms prenom nombres nombre nomi \
         nome nomes voornamen imiona prenomes fornavn fornamn etunimet jmeno jmena meno vards \
         vardas eesnimi utonev prenume ime firstname firstnames",
    ),
    (
        F::DateOfBirth,
        "dateofbirth birthdate geburtstag geburtsdatum datedenaissance fechadenacimiento \
         datadinascita geboortedatum dataurodzenia datadenascimento fodselsdato fodelsedatum \
         syntymaaika datumnarozeni datumnarodenia dzimsanasdatums gimimodata dataanasterii \
         datumrodenja neele",
    ),
    (
        F::PlaceOfBirth,
        "placeofbirth birthplace geburtsort lieudenaissance lugardenacimiento luogodinascita \
         geboorteplaats miejsceurodzenia localdenascimento naturalidade fodested fodelseort \
         syntymapaikka mistonarozeni miestonarodenia dzimsanasvieta gimimovieta loculnasterii \
         mjestorodenja",
    ),
    (
        F::DateOfIssue,
        "dateofissue issuedate ausstellungsdatum datededelivrance datedelivrance \
         fechadeexpedicion fechadeemision datadirilascio datadiemissione datumvanafgifte \
         datawydania datadeemissao datadeexpedicao utstedt utstedelsesdato utfardandedatum \
         myontamispaiva datumvydani datumvydania izdosanasdatums isdavimodata dataeliberarii \
         datumizdavanja dateissued",
    ),
    (
        F::DateOfExpiry,
        "dateofexpiry expirydate expires gultigbis datedexpiration dateexpiration \
         fechadecaducidad fechadevencimiento validohasta datadiscadenza scadenza geldigtot \
         vervaldatum datawaznosci validade validoate gyldigtil giltigtill voimassa platnostdo \
         platnatdo derigumatermins galiojaiki dataexpirarii vrijedido",
    ),
    (
        F::IssuingAuthority,
        "authority issuingauthority behorde ausstellendebehorde autorite autoridad autorita \
         autoriteit organwydajacy autoridade myndighet utstedendemyndighet viranomainen \
         uradvydal izdevejiestade isdave autoritatea izdao issuedby deliverepar expedidopor",
    ),
    (
        F::PersonalNumber,
        "personalno personalnumber personalnr personalcode personnummer personnumber \
         numeropersonnel nopersonnel persoonsnummer pesel numerpesel personnr fodselsnummer \
         henkilotunnus rodnecislo personaskods asmenskodas isikukood cnp nin nationalidno \
         identitynumber idno dni",
    ),
    (
        F::DocumentNumber,
        "passportno passportnumber passnr passnummer passeportno nodupasseport pasaporteno \
         numerodepasaporte passaportono paspoortnummer numerpaszportu documentno \
         documentnumber docno cardno cardnumber numerodudocument dokumentnummer \
         documentnummer numerodedocumento numerodocumento passinro cisloplasu \
         numerodedocument numerodepasseport ndepasseport passportnr nodocument \
         numerodocumentu",
    ),
    (
        F::Sex,
        "sex geschlecht sexe sexo sesso geslacht plec kon kjonn sukupuoli pohlavi dzimums \
         lytis sugu sexul spol gender",
    ),
];

/// Labels of what no field here holds (their values must not be taken for another's), as
/// [`FIELDS`] writes its words.
const OTHERS: &str = "nationality staatsangehorigkeit nationalite nacionalidad cittadinanza nationaliteit \
         obywatelstwo nacionalidade statsborgerskap medborgarskap signature unterschrift \
         titulaire firma handtekening podpis assinatura type typ tipo code kode codice codigo \
         kod height grosse taille estatura statura lengte wzrost residence wohnort domicile \
         domicilio address adresse eyes augenfarbe yeux observations remarks can countrycode \
         issuingstate country paisemisor pays numberofentries entries nombredentrees \
         durationofstay dureedesejour validfrom valablea validuntil valablejusqua validfor \
         valablepour duration duree until jusqua from remarques remarks observaciones bemerkungen uwagi \
         annotations formofthepersonsname historicalform personvarda geb";

/// The text lower-cased, accents dropped, split into words of letters and digits.
fn words(text: &str) -> Vec<String> {
    let folded: String = text
        .nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    folded.split_whitespace().map(str::to_owned).collect()
}

/// Where `keyword` is in the line of `words` (`joined`: their letters run together), as
/// ranges of `joined`: alone for a short one, else anywhere.
fn found_at(words: &[String], joined: &str, keyword: &str) -> Vec<(usize, usize)> {
    if keyword.len() <= 4 {
        let mut at = 0;
        let mut found = Vec::new();
        for word in words {
            if word == keyword {
                found.push((at, at + word.len()));
            }
            at += word.len();
        }
        return found;
    }
    joined.match_indices(keyword).map(|(at, _)| (at, at + keyword.len())).collect()
}

/// Whether `keyword` is in the line ([`found_at`]).
fn holds(words: &[String], joined: &str, keyword: &str) -> bool {
    !found_at(words, joined, keyword).is_empty()
}

/// What `text` labels, when it is a label: the field whose longest keyword it holds.
pub(crate) fn label_of(text: &str) -> Option<Label> {
    let words = words(text);
    // Digits number the fields (`6.Place of birth`); a value of digits is no label.
    let letters: Vec<String> =
        words.iter().filter(|word| !word.chars().all(|c| c.is_ascii_digit())).cloned().collect();
    if letters.is_empty() {
        return None;
    }
    let joined: String = letters.concat();
    let held: Vec<(VisualFieldName, &str)> = FIELDS
        .iter()
        .flat_map(|(name, keywords)| {
            keywords.split_whitespace().map(move |keyword| (*name, keyword))
        })
        .filter(|(_, keyword)| holds(&letters, &joined, keyword))
        .collect();
    // One label for the surname and the given names (`Nom, prénom`) is a whole name's,
    // which neither field holds alone; not where a surname's word is part of the given
    // names' (`name` in `Given name`, `nom` in `prénom`).
    let places = |field: VisualFieldName| -> Vec<(usize, usize)> {
        held.iter()
            .filter(|(name, _)| *name == field)
            .flat_map(|(_, keyword)| found_at(&letters, &joined, keyword))
            .collect()
    };
    let (surname, given) = (places(F::Surname), places(F::GivenNames));
    let apart = |a: &(usize, usize), b: &(usize, usize)| a.1 <= b.0 || b.1 <= a.0;
    if surname.iter().any(|s| given.iter().all(|g| apart(s, g))) && !given.is_empty() {
        return Some(Label::Other);
    }
    let best = held.into_iter().max_by_key(|(_, keyword)| keyword.len());
    let other = OTHERS
        .split_whitespace()
        .filter(|keyword| holds(&letters, &joined, keyword))
        .map(|keyword| keyword.len())
        .max();
    match (best, other) {
        (Some((name, _)), None) => Some(Label::Field(name)),
        (Some((name, keyword)), Some(other)) if keyword.len() >= other => Some(Label::Field(name)),
        (_, Some(_)) => Some(Label::Other),
        (None, None) => None,
    }
}
