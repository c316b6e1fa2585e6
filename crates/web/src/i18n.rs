//! The page's words in English and Brazilian Portuguese.
//!
//! The language comes from `?lang=` (the page's switch), else from `Accept-Language`, else
//! English. The HTML's `{{t:KEY}}` placeholders are filled on the server; the script gets
//! the same table for its language as JSON in the page, so every word a person reads (field
//! names, verdicts, advice for each diagnostic code, correction reasons) is translated and
//! no raw code reaches them.

use http::HeaderMap;
use serde_json::{Map, Value};

/// A language the page speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lang {
    En,
    PtBr,
}

impl Lang {
    /// The BCP 47 tag, for `lang` and `Content-Language`.
    pub(crate) fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::PtBr => "pt-BR",
        }
    }

    fn from_tag(tag: &str) -> Option<Lang> {
        let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
        match primary.as_str() {
            "en" => Some(Lang::En),
            "pt" => Some(Lang::PtBr),
            _ => None,
        }
    }
}

/// The page's language: `?lang=` first, then the best `Accept-Language` we speak.
pub(crate) fn choose(query: Option<&str>, headers: &HeaderMap) -> Lang {
    let asked = query
        .into_iter()
        .flat_map(|q| q.split('&'))
        .find_map(|pair| pair.strip_prefix("lang=").and_then(Lang::from_tag));
    if let Some(lang) = asked {
        return lang;
    }
    let Some(accept) = headers.get(http::header::ACCEPT_LANGUAGE).and_then(|v| v.to_str().ok())
    else {
        return Lang::En;
    };
    let mut best: Option<(f32, Lang)> = None;
    for range in accept.split(',') {
        let mut parts = range.split(';');
        let tag = parts.next().unwrap_or_default();
        let quality = parts
            .find_map(|p| p.trim().strip_prefix("q="))
            .and_then(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        if let Some(lang) = Lang::from_tag(tag)
            && quality > 0.0
            && best.is_none_or(|(q, _)| quality > q)
        {
            best = Some((quality, lang));
        }
    }
    best.map_or(Lang::En, |(_, lang)| lang)
}

/// Fills the `{{t:KEY}}` placeholders of `page` with the texts of `lang`.
pub(crate) fn fill(page: &str, lang: Lang) -> String {
    let mut out = String::with_capacity(page.len());
    let mut rest = page;
    while let Some(start) = rest.find("{{t:") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 4..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return out;
        };
        out.push_str(&html_escape(text(&after[..end], lang)));
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// Every text of `lang`, as the JSON object the script reads (`<` escaped, so that it can
/// sit inside a `<script>` element).
pub(crate) fn messages_json(lang: Lang) -> String {
    let map: Map<String, Value> = TEXTS
        .iter()
        .map(|(key, en, pt)| {
            let text = if lang == Lang::PtBr { pt } else { en };
            ((*key).to_owned(), Value::String((*text).to_owned()))
        })
        .collect();
    Value::Object(map).to_string().replace('<', "\\u003c")
}

fn text(key: &str, lang: Lang) -> &'static str {
    TEXTS.iter().find(|(k, _, _)| *k == key).map_or("", |(_, en, pt)| match lang {
        Lang::En => en,
        Lang::PtBr => pt,
    })
}

/// Text made safe inside HTML elements and double-quoted attributes.
pub(crate) fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// (key, English, Brazilian Portuguese). `{name}` marks a value the script puts in.
const TEXTS: &[(&str, &str, &str)] = &[
    // The page.
    (
        "title",
        "mrtd: read a passport, ID card or visa",
        "mrtd: leia um passaporte, carteira de identidade ou visto",
    ),
    (
        "description",
        "Reads the machine readable zone of passports, ID cards and visas from a photo and checks every check digit.",
        "Lê a zona de leitura mecânica de passaportes, carteiras de identidade e vistos a partir de uma foto e confere cada dígito verificador.",
    ),
    ("skip", "Skip to the reader", "Ir para o leitor"),
    ("language", "Language", "Idioma"),
    (
        "intro",
        "Read the machine readable zone (the lines with < signs) of a passport, ID card or visa from a photo. Every check digit is verified; nothing is kept unless you ask.",
        "Leia a zona de leitura mecânica (as linhas com sinais <) de um passaporte, carteira de identidade ou visto a partir de uma foto. Cada dígito verificador é conferido; nada é guardado, a menos que você peça.",
    ),
    ("photo", "Photo", "Foto"),
    ("choose", "Choose a photo of the document", "Escolha uma foto do documento"),
    ("camera", "Take a photo with the camera", "Tire uma foto com a câmera"),
    (
        "help",
        "JPEG, PNG, WebP, TIFF, BMP, HEIC or a scanned PDF; you can also drop it here. The photo is sent to this server only, read, and forgotten unless you choose to keep the result.",
        "JPEG, PNG, WebP, TIFF, BMP, HEIC ou um PDF digitalizado; você também pode soltá-lo aqui. A foto é enviada somente a este servidor, lida e esquecida, a menos que você escolha guardar o resultado.",
    ),
    (
        "sample",
        "Try a sample (a specimen passport of Utopia)",
        "Experimente um exemplo (um passaporte de espécime de Utopia)",
    ),
    ("options", "Options", "Opções"),
    ("other_side", "Add the card's other side", "Adicionar o outro lado do cartão"),
    (
        "other_side_seen",
        "Read with the other side ({file}): {what}.",
        "Lido com o outro lado ({file}): {what}.",
    ),
    ("other_face", "a face, no zone", "um rosto, sem zona"),
    ("other_nothing", "no zone and no face", "nem zona nem rosto"),
    (
        "other_zone",
        "a zone too (the better reading is shown)",
        "também uma zona (a melhor leitura é mostrada)",
    ),
    (
        "retain",
        "Keep the result for (hours, 0 keeps nothing)",
        "Guardar o resultado por (horas; 0 não guarda nada)",
    ),
    (
        "reference",
        "Reference date (decides date centuries and expiry; default today)",
        "Data de referência (define o século das datas e a validade; padrão: hoje)",
    ),
    (
        "api_key",
        "API key (only for servers with authentication on; kept in this tab only)",
        "Chave de API (só para servidores com autenticação; fica apenas nesta aba)",
    ),
    ("read_button", "Read the document", "Ler o documento"),
    ("typed_heading", "Or type the MRZ lines", "Ou digite as linhas da MRZ"),
    ("typed_label", "MRZ lines, one per line", "Linhas da MRZ, uma por linha"),
    ("parse_button", "Parse the lines", "Interpretar as linhas"),
    ("result", "Result", "Resultado"),
    ("nothing_yet", "No document read yet.", "Nenhum documento lido ainda."),
    ("photo_alt", "The photo you chose", "A foto que você escolheu"),
    (
        "outline",
        "The outline marks where the machine readable zone was found.",
        "O contorno marca onde a zona de leitura mecânica foi encontrada.",
    ),
    (
        "outline_page",
        "The outline marks where the machine readable zone was found; the dashed line, where the document's page lies by the format's layout; the box, where its portrait is printed.",
        "O contorno marca onde a zona de leitura mecânica foi encontrada; a linha tracejada, onde fica a página do documento segundo o leiaute do formato; o retângulo, onde o retrato está impresso.",
    ),
    (
        "outline_other",
        "The dotted lines mark the other document found in the photo.",
        "As linhas pontilhadas marcam o outro documento encontrado na foto.",
    ),
    (
        "outline_face",
        "No machine readable zone on this photo; the box marks the face found.",
        "Nenhuma zona de leitura mecânica nesta foto; o retângulo marca o rosto encontrado.",
    ),
    (
        "no_outline",
        "No machine readable zone was located on this photo.",
        "Nenhuma zona de leitura mecânica foi localizada nesta foto.",
    ),
    ("fields", "Fields", "Campos"),
    ("lines", "MRZ lines", "Linhas da MRZ"),
    ("checks", "Check digits", "Dígitos verificadores"),
    ("field", "Field", "Campo"),
    ("verdict", "Verdict", "Resultado"),
    ("corrections", "Corrections", "Correções"),
    ("advice", "Advice", "Orientações"),
    ("json", "The whole result as JSON", "O resultado completo em JSON"),
    ("for_programs", "For programs", "Para programas"),
    // The legend of the field marks.
    ("legend", "What the marks mean", "O que as marcas significam"),
    ("mark_verified", "verified", "conferido"),
    (
        "mark_verified_long",
        "a check digit covers the field and holds",
        "um dígito verificador cobre o campo e confere",
    ),
    ("mark_uncovered", "not checked", "sem verificação"),
    (
        "mark_uncovered_long",
        "no check digit covers the field: compare it with the document",
        "nenhum dígito verificador cobre o campo: compare com o documento",
    ),
    ("mark_corrected", "corrected", "corrigido"),
    (
        "mark_corrected_long",
        "a character was changed from what was seen, with the proof listed under Corrections",
        "um caractere foi trocado em relação ao que foi visto, com a prova listada em Correções",
    ),
    ("mark_doubtful", "doubtful", "duvidoso"),
    (
        "mark_doubtful_long",
        "its check digit fails or the reading is uncertain: do not use it without looking",
        "o dígito verificador não confere ou a leitura é incerta: não use sem conferir",
    ),
    // The printed page against the MRZ.
    ("printed_heading", "Compare with the printed page", "Comparar com a página impressa"),
    (
        "printed_help",
        "Type what the document's page prints, as printed (accents, dates such as 16 APR 2007 or 16.04.2007); each field given is set against the MRZ by its writing rules (Ü as UE or U).",
        "Digite o que a página do documento imprime, como impresso (acentos, datas como 16 ABR 2007 ou 16.04.2007); cada campo informado é comparado com a MRZ pelas regras dela (Ü como UE ou U).",
    ),
    ("printed_button", "Compare", "Comparar"),
    ("printed_none", "Type at least one field.", "Digite pelo menos um campo."),
    (
        "printed_agrees",
        "The printed page agrees with the MRZ.",
        "A página impressa confere com a MRZ.",
    ),
    (
        "printed_differs",
        "The printed page differs from the MRZ in: {fields}. Look at the document: a misread, or an edited page.",
        "A página impressa difere da MRZ em: {fields}. Examine o documento: um erro de leitura ou uma página adulterada.",
    ),
    (
        "printed_unknown",
        "The MRZ holds none of the fields given, so nothing could be compared.",
        "A MRZ não contém nenhum dos campos informados; nada pôde ser comparado.",
    ),
    (
        "printed_invalid",
        "A value is not in a form the server reads: dates such as 16 APR 2007, 16.04.2007 or 2007-04-16; sex F, M or X.",
        "Um valor não está em uma forma que o servidor lê: datas como 16 ABR 2007, 16.04.2007 ou 2007-04-16; sexo F, M ou X.",
    ),
    ("a_agrees", "agrees", "confere"),
    ("a_agrees_truncated", "agrees (cut in the MRZ)", "confere (cortado na MRZ)"),
    ("a_differs", "differs", "difere"),
    ("a_not_in_mrz", "not in the MRZ", "não está na MRZ"),
    ("a_uncompared", "not compared (script)", "não comparado (escrita)"),
    // Field names.
    ("f_document_code", "Document code", "Tipo de documento"),
    ("f_issuer", "Issuer", "País emissor"),
    ("f_document_number", "Document number", "Número do documento"),
    ("f_surname", "Surname", "Sobrenome"),
    ("f_given_names", "Given names", "Nomes"),
    ("f_nationality", "Nationality", "Nacionalidade"),
    ("f_birth_date", "Date of birth", "Data de nascimento"),
    ("f_sex", "Sex", "Sexo"),
    ("f_expiry_date", "Date of expiry", "Data de validade"),
    ("f_optional_data", "Optional data", "Dados opcionais"),
    ("f_optional_data_2", "Optional data 2", "Dados opcionais 2"),
    ("f_composite", "Composite", "Composto"),
    // Check verdicts.
    ("v_verified", "verified", "conferido"),
    (
        "v_refuted",
        "refuted (printed {printed}, computed {computed})",
        "não confere (impresso {printed}, calculado {computed})",
    ),
    ("v_absent", "not printed", "não impresso"),
    // Status lines.
    (
        "s_read",
        "Read this {format} document: every check digit verified.",
        "Documento {format} lido: todos os dígitos verificadores conferem.",
    ),
    (
        "s_read_invalid",
        "Read this {format} document: not every check digit verified.",
        "Documento {format} lido: nem todos os dígitos verificadores conferem.",
    ),
    // The headline's expiry badge, from the expiry date and the reference date.
    ("x_expired", "Expired on {date}", "Vencido em {date}"),
    ("x_soon", "Expires within 6 months, on {date}", "Vence em menos de 6 meses, em {date}"),
    ("x_valid", "In date until {date}", "Válido até {date}"),
    ("age_one", "{years} year old", "{years} ano"),
    ("age_other", "{years} years old", "{years} anos"),
    ("pdf_page", "Found on page {page} of the PDF.", "Encontrado na página {page} do PDF."),
    ("copy_json", "Copy the JSON", "Copiar o JSON"),
    ("download_json", "Download the JSON", "Baixar o JSON"),
    ("copied", "Copied.", "Copiado."),
    (
        "copy_failed",
        "Could not copy; open the JSON below and select it.",
        "Não foi possível copiar; abra o JSON abaixo e selecione-o.",
    ),
    ("s_kept", "Kept as scan {id} until {until}.", "Guardado como {id} até {until}."),
    (
        "s_partial",
        "Found a machine readable zone ({format}) but could not read it with confidence. See the advice below.",
        "Encontrada uma zona de leitura mecânica ({format}), mas a leitura não é confiável. Veja as orientações abaixo.",
    ),
    (
        "s_typed_refuted",
        "These lines do not add up: a check digit does not match ({checks}). Check your typing; see the advice below.",
        "Estas linhas não conferem: um dígito verificador não corresponde ({checks}). Confira a digitação; veja as orientações abaixo.",
    ),
    (
        "s_no_mrz",
        "No machine readable zone was found. See the advice below.",
        "Nenhuma zona de leitura mecânica foi encontrada. Veja as orientações abaixo.",
    ),
    ("s_reading", "Reading the document…", "Lendo o documento…"),
    ("s_parsing", "Parsing the lines…", "Interpretando as linhas…"),
    (
        "s_failed",
        "Could not read the document: {message}",
        "Não foi possível ler o documento: {message}",
    ),
    ("s_server", "The server answered {status}.", "O servidor respondeu {status}."),
    (
        "s_unreachable",
        "The server could not be reached. Check the connection and try again.",
        "Não foi possível contatar o servidor. Verifique a conexão e tente de novo.",
    ),
    ("s_choose_first", "Choose a photo first.", "Escolha uma foto primeiro."),
    (
        "s_type_first",
        "Type the two or three MRZ lines first.",
        "Digite primeiro as duas ou três linhas da MRZ.",
    ),
    ("unknown_format", "format unknown", "formato desconhecido"),
    (
        "correction",
        "Line {line}, column {column}: {from} became {to}. {why}",
        "Linha {line}, coluna {column}: {from} virou {to}. {why}",
    ),
    // Why a character was corrected.
    (
        "w_digit_only_field",
        "Only digits go here, and this letter is usually a misread digit.",
        "Aqui só cabem dígitos, e essa letra costuma ser um dígito mal lido.",
    ),
    (
        "w_letter_only_field",
        "Only letters go here, and this digit is usually a misread letter.",
        "Aqui só cabem letras, e esse dígito costuma ser uma letra mal lida.",
    ),
    (
        "w_filler_run",
        "The name had ended, so this is a filler sign (<).",
        "O nome já havia terminado, então isto é um sinal de preenchimento (<).",
    ),
    (
        "w_name_letters",
        "The reader was unsure, and this letter is far more usual in names here.",
        "A leitura era incerta, e esta letra é bem mais comum em nomes nesta posição.",
    ),
    (
        "w_document_glyphs",
        "This glyph is how the document prints this character where nothing else may stand.",
        "Este glifo é como o documento imprime este caractere onde nada mais pode estar.",
    ),
    (
        "w_check_digit",
        "Only with this change do the check digits agree.",
        "Só com esta troca os dígitos verificadores conferem.",
    ),
    // Advice for each diagnostic code.
    (
        "d_no_mrz_found",
        "No machine readable zone was seen. Photograph the page so that the two or three lines with < signs at the bottom are in view, sharp and not washed out by light.",
        "Nenhuma zona de leitura mecânica foi vista. Fotografe a página de modo que as duas ou três linhas com sinais < na parte de baixo apareçam inteiras, nítidas e sem reflexo.",
    ),
    (
        "d_turn_over",
        "This side shows a face but no machine readable zone: it looks like the front of an ID card or residence permit. Turn the card over and photograph the back, where the lines with < signs are; for a passport, photograph the page with the portrait and the lines at its foot.",
        "Este lado mostra um rosto mas nenhuma zona de leitura mecânica: parece a frente de uma carteira de identidade ou de um título de residência. Vire o cartão e fotografe o verso, onde estão as linhas com sinais <; para um passaporte, fotografe a página com a foto e as linhas ao pé.",
    ),
    (
        "d_another_mrz",
        "The photo shows a second machine readable zone, of another document or page; it was read too, and is drawn in dotted lines and listed below. To read one document alone, photograph it on its own.",
        "A foto mostra uma segunda zona de leitura mecânica, de outro documento ou página; ela também foi lida, aparece em linhas pontilhadas e listada abaixo. Para ler um documento sozinho, fotografe-o separadamente.",
    ),
    (
        "d_visual_zone_differs",
        "The page's printed fields differ from the machine readable zone. Either one was misread or the page was altered: compare them on the document itself.",
        "Os campos impressos na página diferem da zona de leitura mecânica. Um deles foi mal lido ou a página foi alterada: compare-os no próprio documento.",
    ),
    ("other_read", "read, every check digit verified", "lido, todos os dígitos conferidos"),
    ("other_partial", "not read with confidence", "não lido com confiança"),
    (
        "other_document",
        "Also in the photo: a {format} document ({status}), lines {lines}.",
        "Também na foto: um documento {format} ({status}), linhas {lines}.",
    ),
    (
        "d_mrz_cut_at_edge",
        "The lines run off the edge of the photo. Take it again with the whole zone inside the picture.",
        "As linhas saem da borda da foto. Tire outra com a zona inteira dentro da imagem.",
    ),
    (
        "d_too_small",
        "The characters are too small to read safely. Move closer or use a higher resolution.",
        "Os caracteres estão pequenos demais para uma leitura segura. Aproxime a câmera ou use uma resolução maior.",
    ),
    (
        "d_too_blurred",
        "The characters are blurred. Hold the camera still and let it focus.",
        "Os caracteres estão borrados. Segure a câmera firme e deixe-a focar.",
    ),
    (
        "d_glare",
        "A reflection washes out part of the zone. Tilt the document or move away from the light.",
        "Um reflexo apaga parte da zona. Incline o documento ou afaste-se da luz.",
    ),
    (
        "d_partly_covered",
        "Something covers part of the zone (a finger, a fold, a holder). Uncover it and take the photo again.",
        "Algo cobre parte da zona (um dedo, uma dobra, uma capa). Descubra-a e tire a foto de novo.",
    ),
    (
        "d_marked_over",
        "A line drawn over the page (a pen stroke, a frame) crosses part of the zone; the characters under it were read from what it left. Compare them with the document.",
        "Uma linha desenhada sobre a página (um traço de caneta, uma moldura) cruza parte da zona; os caracteres sob ela foram lidos do que restou. Compare-os com o documento.",
    ),
    (
        "d_line_unreadable",
        "One line could not be read with confidence. Take a sharper photo.",
        "Uma linha não pôde ser lida com confiança. Tire uma foto mais nítida.",
    ),
    (
        "d_check_digit_failed",
        "Some check digits do not match what was read. Take a sharper photo, or check the lines by hand.",
        "Alguns dígitos verificadores não conferem com o que foi lido. Tire uma foto mais nítida ou confira as linhas manualmente.",
    ),
    (
        "d_check_digit_typed",
        "A check digit does not match the characters typed. Check the typing of the digit and of the characters it covers.",
        "Um dígito verificador não confere com os caracteres digitados. Confira a digitação do dígito e dos caracteres que ele cobre.",
    ),
    (
        "d_low_confidence",
        "Some characters no check digit covers (names, codes) were read with low confidence. Compare them with the document.",
        "Alguns caracteres sem dígito verificador (nomes, códigos) foram lidos com pouca confiança. Compare-os com o documento.",
    ),
    (
        "d_rotated",
        "The document was turned in the photo; it was read anyway.",
        "O documento estava girado na foto; foi lido mesmo assim.",
    ),
    (
        "d_corrected",
        "Some characters were changed from the first guess, each with its proof.",
        "Alguns caracteres foram trocados em relação à primeira leitura, cada um com sua prova.",
    ),
    ("d_other", "Look at the photo and the lines again.", "Confira de novo a foto e as linhas."),
    // The words for each REST error code (`crate::error::CODES`): the page shows these, not
    // the server's English `detail`.
    (
        "e_invalid_request",
        "The request was not valid. Reload the page and try again.",
        "A requisição não é válida. Recarregue a página e tente de novo.",
    ),
    (
        "e_invalid_cursor",
        "The list position is not one this server gave.",
        "A posição na lista não foi dada por este servidor.",
    ),
    (
        "e_unauthorized",
        "This server needs an API key: enter it under Options.",
        "Este servidor exige uma chave de API: informe-a em Opções.",
    ),
    (
        "e_forbidden",
        "This API key may not do this, or this page's address is not allowed.",
        "Esta chave de API não tem permissão para isso, ou o endereço desta página não é permitido.",
    ),
    (
        "e_not_found",
        "Nothing was found here: the scan is unknown, expired or deleted.",
        "Nada foi encontrado: a leitura é desconhecida, venceu ou foi apagada.",
    ),
    (
        "e_method_not_allowed",
        "The server does not take this kind of request here.",
        "O servidor não aceita este tipo de requisição aqui.",
    ),
    (
        "e_request_timeout",
        "The photo took too long to arrive. Try again on a better connection.",
        "A foto demorou demais para chegar. Tente de novo com uma conexão melhor.",
    ),
    (
        "e_payload_too_large",
        "The file is larger than this server accepts. Send a smaller photo.",
        "O arquivo é maior do que este servidor aceita. Envie uma foto menor.",
    ),
    (
        "e_unsupported_media_type",
        "The server cannot take this kind of file.",
        "O servidor não aceita este tipo de arquivo.",
    ),
    (
        "e_unreadable_image",
        "This file is not an image the reader can open. Send a JPEG, PNG, WebP, TIFF, BMP, HEIC or a scanned PDF.",
        "Este arquivo não é uma imagem que o leitor consiga abrir. Envie JPEG, PNG, WebP, TIFF, BMP, HEIC ou um PDF digitalizado.",
    ),
    (
        "e_not_mrz",
        "This text is not a machine readable zone: type the two or three lines with < signs.",
        "Este texto não é uma zona de leitura mecânica: digite as duas ou três linhas com sinais <.",
    ),
    (
        "e_image_url_refused",
        "The image at that address was not fetched.",
        "A imagem nesse endereço não foi baixada.",
    ),
    (
        "e_unreadable_chip_data",
        "EF.SOD or a data group file cannot be read. Check that you chose the files the NFC app saved.",
        "O EF.SOD ou um arquivo de grupo de dados não pode ser lido. Confira se escolheu os arquivos que o aplicativo NFC salvou.",
    ),
    (
        "e_rate_limited",
        "Too many requests in a short time. Wait a moment and try again.",
        "Requisições demais em pouco tempo. Aguarde um pouco e tente de novo.",
    ),
    (
        "e_internal",
        "Something failed inside the server; nothing was kept. Try again.",
        "Algo falhou dentro do servidor; nada foi guardado. Tente de novo.",
    ),
    (
        "e_store_unavailable",
        "The server cannot reach its storage right now. Try again in a few seconds.",
        "O servidor não consegue acessar o armazenamento agora. Tente de novo em alguns segundos.",
    ),
    (
        "e_busy",
        "The server is busy reading other documents. Try again in a few seconds.",
        "O servidor está ocupado lendo outros documentos. Tente de novo em alguns segundos.",
    ),
    // Names of the ICAO 9303 codes that are no ISO 3166 country (the browser names those).
    ("cc_D", "Germany", "Alemanha"),
    ("cc_EUE", "European Union", "União Europeia"),
    (
        "cc_GBD",
        "British Overseas Territories Citizen",
        "Cidadão dos Territórios Britânicos Ultramarinos",
    ),
    ("cc_GBN", "British National (Overseas)", "Nacional Britânico (Ultramar)"),
    ("cc_GBO", "British Overseas Citizen", "Cidadão Britânico Ultramarino"),
    ("cc_GBP", "British Protected Person", "Pessoa sob Proteção Britânica"),
    ("cc_GBS", "British Subject", "Súdito Britânico"),
    ("cc_RKS", "Kosovo", "Kosovo"),
    ("cc_XKX", "Kosovo", "Kosovo"),
    ("cc_UNO", "United Nations", "Nações Unidas"),
    (
        "cc_UNA",
        "A specialized agency of the United Nations",
        "Agência especializada das Nações Unidas",
    ),
    (
        "cc_UNK",
        "United Nations Interim Administration Mission in Kosovo",
        "Missão de Administração Interina das Nações Unidas no Kosovo",
    ),
    ("cc_XBA", "African Development Bank", "Banco Africano de Desenvolvimento"),
    ("cc_XIM", "African Export-Import Bank", "Banco Africano de Exportação e Importação"),
    ("cc_XCC", "Caribbean Community", "Comunidade do Caribe"),
    ("cc_XCE", "Council of Europe", "Conselho da Europa"),
    (
        "cc_XCO",
        "Common Market for Eastern and Southern Africa",
        "Mercado Comum da África Oriental e Austral",
    ),
    (
        "cc_XEC",
        "Economic Community of West African States",
        "Comunidade Econômica dos Estados da África Ocidental",
    ),
    ("cc_XPO", "INTERPOL", "INTERPOL"),
    (
        "cc_XES",
        "Organisation of Eastern Caribbean States",
        "Organização dos Estados do Caribe Oriental",
    ),
    (
        "cc_XMP",
        "Parliamentary Assembly of the Mediterranean",
        "Assembleia Parlamentar do Mediterrâneo",
    ),
    ("cc_XOM", "Sovereign Military Order of Malta", "Ordem Soberana e Militar de Malta"),
    (
        "cc_XDC",
        "Southern African Development Community",
        "Comunidade de Desenvolvimento da África Austral",
    ),
    ("cc_XXA", "Stateless person", "Apátrida"),
    ("cc_XXB", "Refugee (1951 Convention)", "Refugiado (Convenção de 1951)"),
    ("cc_XXC", "Refugee (other)", "Refugiado (outros)"),
    ("cc_XXX", "Nationality unspecified", "Nacionalidade não especificada"),
    ("cc_ANT", "Netherlands Antilles", "Antilhas Holandesas"),
    ("cc_NTZ", "Neutral Zone", "Zona Neutra"),
    ("cc_UTO", "Utopia", "Utopia"),
    ("cc_YTO", "a specimen state", "um Estado de espécime"),
    ("no_fields", "No field could be read.", "Nenhum campo pôde ser lido."),
    // The chip section.
    ("chip_heading", "Or verify a chip's data", "Ou verifique os dados de um chip"),
    (
        "chip_intro",
        "Files an NFC reader app read from the document's chip: EF.SOD and the data groups (EF.DG1, EF.DG2, …). They are checked against this server's trust store (Passive Authentication) and not kept.",
        "Arquivos que um aplicativo leitor NFC leu do chip do documento: EF.SOD e os grupos de dados (EF.DG1, EF.DG2, …). Eles são conferidos com o repositório de confiança deste servidor (Autenticação Passiva) e não são guardados.",
    ),
    ("chip_sod", "EF.SOD", "EF.SOD"),
    (
        "chip_dgs",
        "Data group files (choose several at once)",
        "Arquivos dos grupos de dados (escolha vários de uma vez)",
    ),
    (
        "chip_drop",
        "Or drop all the files here: the one named EF.SOD (or SOD) is taken as EF.SOD.",
        "Ou solte todos os arquivos aqui: o chamado EF.SOD (ou SOD) é tomado como EF.SOD.",
    ),
    (
        "chip_aa",
        "Active Authentication (optional): is it the original chip?",
        "Autenticação Ativa (opcional): é o chip original?",
    ),
    (
        "chip_challenge",
        "The challenge the app sent the chip (hexadecimal); give DG15 among the data groups",
        "O desafio que o aplicativo enviou ao chip (hexadecimal); inclua o DG15 entre os grupos de dados",
    ),
    ("chip_response", "The chip's answer (a file)", "A resposta do chip (um arquivo)"),
    ("chip_button", "Verify the chip", "Verificar o chip"),
    ("chip_report", "Chip verification", "Verificação do chip"),
    ("chip_mrz", "MRZ in DG1", "MRZ no DG1"),
    ("c_signature", "EF.SOD's signature", "Assinatura do EF.SOD"),
    ("c_chain", "Chain to a CSCA", "Cadeia até uma CSCA"),
    ("c_data_groups", "Data groups", "Grupos de dados"),
    ("c_not_supplied", "Listed in EF.SOD, not given", "Listados no EF.SOD, não enviados"),
    ("c_active", "Active Authentication", "Autenticação Ativa"),
    ("c_chip", "The chip", "O chip"),
    ("c_signer", "Document signer", "Signatário do documento"),
    ("c_csca", "CSCA", "CSCA"),
    ("c_none", "none", "nenhum"),
    (
        "c_genuine",
        "genuine: it holds the key its issuer gave it",
        "genuíno: possui a chave que o emissor lhe deu",
    ),
    ("c_not_genuine", "not shown genuine", "não comprovado como genuíno"),
    ("cv_verified", "verified", "conferido"),
    ("cv_invalid", "invalid", "inválida"),
    ("cv_unsupported_algorithm", "algorithm not supported", "algoritmo não suportado"),
    ("cv_no_signer_certificate", "no signer certificate", "sem certificado do signatário"),
    ("cv_trusted", "trusted", "confiável"),
    ("cv_no_trust_anchor", "no trust store configured", "sem repositório de confiança"),
    ("cv_untrusted", "not issued by a trusted CSCA", "não emitida por uma CSCA confiável"),
    ("cv_expired", "expired when it signed", "vencida quando assinou"),
    ("cv_revoked", "revoked", "revogada"),
    ("cv_wrong_key_usage", "key usage does not allow it", "o uso da chave não permite"),
    ("cv_not_checked", "not checked", "não verificado"),
    ("cv_mismatch", "does not match EF.SOD", "não confere com o EF.SOD"),
    ("cv_not_in_sod", "not listed in EF.SOD", "não listado no EF.SOD"),
    ("cv_failed", "failed", "falhou"),
    ("cv_not_supplied", "not given", "não enviada"),
    ("cv_unsupported", "not supported", "não suportada"),
    (
        "s_chip_authentic",
        "The chip's data is authentic: signed by a trusted CSCA and unaltered.",
        "Os dados do chip são autênticos: assinados por uma CSCA confiável e inalterados.",
    ),
    (
        "s_chip_not_authentic",
        "The chip's data is not shown authentic. See the advice below.",
        "Os dados do chip não foram comprovados como autênticos. Veja as orientações abaixo.",
    ),
    (
        "s_chip_genuine",
        "Active Authentication verified: this is the issued chip, not a copy.",
        "Autenticação Ativa conferida: este é o chip emitido, não uma cópia.",
    ),
    ("s_verifying", "Verifying the chip data…", "Verificando os dados do chip…"),
    ("s_choose_sod", "Choose the EF.SOD file first.", "Escolha primeiro o arquivo EF.SOD."),
    (
        "s_bad_challenge",
        "The challenge must be hexadecimal, and given with the chip's answer.",
        "O desafio deve ser hexadecimal e enviado junto com a resposta do chip.",
    ),
    // Advice for the chip report's diagnostics (the server's sentences are English).
    (
        "cd_no_trust_anchor",
        "This server has no CSCA trust store, so nothing can be called authentic; its operator configures one (--csca-dir).",
        "Este servidor não tem repositório de CSCAs, então nada pode ser declarado autêntico; o operador configura um (--csca-dir).",
    ),
    (
        "cd_untrusted",
        "No CSCA in this server's trust store issued the document signer certificate.",
        "Nenhuma CSCA do repositório deste servidor emitiu o certificado do signatário.",
    ),
    (
        "cd_data_group_mismatch",
        "A data group is not the one EF.SOD signs: it was changed, or read wrongly.",
        "Um grupo de dados não é o que o EF.SOD assina: foi alterado ou lido errado.",
    ),
    (
        "cd_data_group_not_in_sod",
        "EF.SOD lists no hash for a data group given.",
        "O EF.SOD não lista hash para um grupo de dados enviado.",
    ),
    (
        "cd_signature_invalid",
        "EF.SOD's signature does not verify with its signer's key.",
        "A assinatura do EF.SOD não confere com a chave do signatário.",
    ),
    (
        "cd_unsupported_algorithm",
        "An algorithm used here cannot be checked by this server.",
        "Um algoritmo usado aqui não pode ser verificado por este servidor.",
    ),
    (
        "cd_expired",
        "The document signer or its CSCA was not valid when EF.SOD was signed.",
        "O signatário ou sua CSCA não era válido quando o EF.SOD foi assinado.",
    ),
    (
        "cd_revoked",
        "A CRL from the CSCA revokes the document signer certificate.",
        "Uma LCR da CSCA revoga o certificado do signatário.",
    ),
    (
        "cd_trust_file_unusable",
        "A file of this server's trust store could not be used; the rest were.",
        "Um arquivo do repositório de confiança deste servidor não pôde ser usado; os demais foram.",
    ),
    (
        "cd_no_data_groups",
        "No data group was given: only EF.SOD's signature and chain were checked.",
        "Nenhum grupo de dados foi enviado: só a assinatura e a cadeia do EF.SOD foram verificadas.",
    ),
    (
        "cd_active_authentication",
        "Active Authentication did not verify: the answer does not fit the challenge and DG15's key, or DG15 is missing or not signed by EF.SOD.",
        "A Autenticação Ativa não conferiu: a resposta não corresponde ao desafio e à chave do DG15, ou o DG15 falta ou não é assinado pelo EF.SOD.",
    ),
    (
        "cd_crl_stale",
        "The CSCA's revocation list is out of date: a recent revocation would not be seen.",
        "A lista de revogação da CSCA está desatualizada: uma revogação recente não seria vista.",
    ),
];

#[cfg(test)]
mod tests;
